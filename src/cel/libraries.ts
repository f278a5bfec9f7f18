// The libraries Kubernetes 1.34's base CEL environment enables (k8s.io/apiserver/pkg/cel/
// environment/base.go at v0.34): the standard library with optional types, cross-type numeric
// comparison and two-variable comprehensions, cel-go's ext strings (version 2), sets and lists
// (version 3), and Kubernetes' own URLs, regex, lists, authorizer (with selectors, beta and on
// by default), quantity, IP, CIDR, format and semver libraries.
import type { CelLibrary } from "./library.js";
import { cidrLibrary } from "./library/cidr.js";
import { formatLibrary } from "./library/format.js";
import { ipLibrary } from "./library/ip.js";
import { quantityLibrary } from "./library/quantity.js";
import { semverLibrary } from "./library/semver.js";
import { urlsLibrary } from "./library/url.js";
import { authzLibrary, authzSelectorsLibrary } from "./library/authz.js";
import { extListsLibrary } from "./library/lists-ext.js";
import { listsLibrary } from "./library/lists.js";
import { regexLibrary } from "./library/regex.js";
import { setsLibrary } from "./library/sets.js";
import { stringsLibrary } from "./library/strings.js";
import { optionalLibrary, standardLibrary, twoVarComprehensionsLibrary } from "./stdlib/index.js";

export const kubernetesLibraries: readonly CelLibrary[] = [
  standardLibrary,
  optionalLibrary,
  twoVarComprehensionsLibrary,
  stringsLibrary,
  setsLibrary,
  extListsLibrary,
  listsLibrary,
  regexLibrary,
  authzLibrary,
  authzSelectorsLibrary,
  urlsLibrary,
  quantityLibrary,
  ipLibrary,
  cidrLibrary,
  formatLibrary,
  semverLibrary,
];
