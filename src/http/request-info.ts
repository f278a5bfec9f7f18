// Pure parse of method + path + query into the attributes authorization and routing use
// (upstream: RequestInfoFactory). No I/O, no knowledge of which resources exist.

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiPrefix: string; // "api" | "apis" | ""
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  /**
   * The resource was addressed below /namespaces/{namespace}/. Not set on a Namespace's own paths
   * (/api/v1/namespaces/{name}[/status|/finalize]), where `namespace` is the Namespace's name.
   */
  namespacedPath?: boolean;
  resource: string;
  subresource: string;
  name: string;
  parts: string[];
  /** The verb came from a /watch/ or /proxy/ path prefix (deprecated forms). */
  verbViaPath?: boolean;
  /** With AuthorizeWithSelectors, list/watch/deletecollection: the raw `fieldSelector` query parameter. */
  fieldSelector?: string;
  /** With AuthorizeWithSelectors, list/watch/deletecollection: the raw `labelSelector` query parameter. */
  labelSelector?: string;
}

import { queryBool } from "../apimachinery/booleans.js";
import { parseFieldSelector } from "../apimachinery/fields.js";
import { parseLabelSelector } from "../apimachinery/labels.js";
import { goQuote } from "../apimachinery/go-quote.js";

const namespaceSubresources = new Set(["status", "finalize"]);

/** A path with an invalid percent-escape (answered 400). */
export class MalformedPathError extends Error {}

function splitPath(path: string): string[] {
  const parts: string[] = [];
  // A segment without an escape is its own decoding (nearly every request: no decode, no copies);
  // scanned in place, so no array of every piece is made first.
  for (let start = 0; start < path.length; ) {
    let end = path.indexOf("/", start);
    if (end < 0) end = path.length;
    if (end > start) {
      const p = path.slice(start, end);
      parts.push(p.includes("%") ? decodeSegment(p) : p);
    }
    start = end + 1;
  }
  return parts;
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new MalformedPathError(`invalid URL escape in ${goQuote(s)}`);
  }
}

export interface RequestInfoOptions {
  /** AuthorizeWithSelectors: keep the raw selectors of list/watch/deletecollection for the authorizers. */
  authorizeWithSelectors?: boolean;
}

/** Verbs whose requests carry selectors the authorizers see (upstream's verbsWithSelectors). */
const verbsWithSelectors = new Set(["list", "watch", "deletecollection"]);
/** Path prefixes naming the verb (deprecated): /api/v1/watch/..., /api/v1/proxy/... */
const specialVerbs = new Set(["proxy", "watch"]);

/**
 * Upstream's RequestInfoFactory: a path is a resource request only with at least
 * /api/{version}/{resource} or /apis/{group}/{version}/{resource}; everything else is a
 * non-resource request whose verb is the lowercased method.
 */
export function parseRequestInfo(method: string, path: string, query: URLSearchParams, opts: RequestInfoOptions = {}): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: "",
    apiGroup: "",
    apiVersion: "",
    namespace: "",
    resource: "",
    subresource: "",
    name: "",
    parts: [],
  };
  const all = splitPath(path);
  if (all.length < 3 || (all[0] !== "api" && all[0] !== "apis")) return info;
  const prefix = all[0]!;
  // The segments not read yet start at `at` (one copy of the rest at the end, not one per step).
  let at = 1;
  if (prefix === "apis") {
    if (all.length - at < 3) return info; // /apis/{group}/{version}: discovery
    info.apiPrefix = prefix;
    info.apiGroup = all[at++]!;
  }
  info.apiPrefix = prefix;
  info.isResourceRequest = true;
  info.apiVersion = all[at++]!;

  let verbViaPath = false;
  if (at < all.length && specialVerbs.has(all[at]!)) {
    if (all.length - at < 2) throw new MalformedPathError(`unable to determine kind and namespace from url, ${path}`);
    info.verb = all[at++]!;
    verbViaPath = true;
    info.verbViaPath = true;
  } else {
    info.verb = methodVerbs[method] ?? "";
  }
  if (all[at] === "namespaces" && all.length - at > 1) {
    info.namespace = all[at + 1]!;
    // /namespaces/{ns}/{resource}... ; but /namespaces/{name}[/status|/finalize] is the namespace itself
    if (all.length - at > 2 && !namespaceSubresources.has(all[at + 2]!)) {
      at += 2;
      info.namespacedPath = true;
    }
  }
  const parts = all.slice(at);
  info.parts = parts;
  if (parts.length >= 3 && info.verb !== "proxy") info.subresource = parts[2]!;
  if (parts.length >= 2) info.name = parts[1]!;
  if (parts.length >= 1) info.resource = parts[0]!;

  if (info.name === "" && info.verb === "get") {
    const decoded = decodeListOptions(query);
    info.verb = decoded.watch ? "watch" : "list";
    // A collection request narrowed to one name is authorized as that name (upstream does the same).
    if (decoded.name !== undefined && validPathSegmentName(decoded.name)) info.name = decoded.name;
  }
  if (info.name === "" && info.verb === "delete") info.verb = "deletecollection";

  if (opts.authorizeWithSelectors && !verbViaPath && verbsWithSelectors.has(info.verb)) {
    const field = query.get("fieldSelector");
    const label = query.get("labelSelector");
    if (field !== null) info.fieldSelector = field;
    if (label !== null) info.labelSelector = label;
  }
  return info;
}

const methodVerbs: Record<string, string> = { POST: "create", GET: "get", HEAD: "get", PUT: "update", PATCH: "patch", DELETE: "delete" };

/**
 * The parts of ListOptions the verb depends on. When the options do not decode (a selector that
 * does not parse, a limit that is not a number) upstream falls back to the raw `watch` value and
 * sets no name.
 */
function decodeListOptions(query: URLSearchParams): { watch: boolean; name?: string } {
  const watch = queryBool(query, "watch");
  try {
    for (const k of ["limit", "timeoutSeconds"]) {
      const v = query.get(k);
      if (v !== null && v !== "" && !/^[+-]?[0-9]+$/.test(v)) return { watch };
    }
    const field = query.get("fieldSelector");
    parseLabelSelector(query.get("labelSelector") ?? "");
    const name = field ? parseFieldSelector(field).requiresExactMatch("metadata.name") : undefined;
    return name === undefined ? { watch } : { watch, name };
  } catch {
    return { watch };
  }
}

/** Upstream path.IsValidPathSegmentName. */
function validPathSegmentName(name: string): boolean {
  return name !== "." && name !== ".." && !name.includes("/") && !name.includes("%");
}
