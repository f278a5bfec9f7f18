// The JSONPatch library of MutatingAdmissionPolicy (k8s.io/apiserver/pkg/cel/library jsonpatch):
// `jsonpatch.escapeKey(k)` escapes a map key for a JSON Patch path ("~" → "~0", "/" → "~1").
import { stringTraversalCostFactor } from "../cost/constants.js";
import type { CelLibrary } from "../library.js";
import { overload } from "../library.js";
import { StringType } from "../types.js";
import { actualSize } from "./compare.js";
import { add, fixed, multiply, scale } from "./compare-cost.js";

export const jsonPatchLibrary: CelLibrary = {
  name: "kubernetes.jsonpatch",
  functions: [
    {
      name: "jsonpatch.escapeKey",
      overloads: [
        overload("string_jsonpatch_escapeKey_string", [StringType], StringType, (a) => (a[0] as string).replaceAll("~", "~0").replaceAll("/", "~1"), {
          cost: {
            estimate: (args) => ({ cost: scale(args[0]!.size, stringTraversalCostFactor), resultSize: add(multiply(args[0]!.size, { min: 1, max: 2 }), fixed(0)) }),
            actual: (args) => Math.ceil(actualSize(args[0]!) * stringTraversalCostFactor),
          },
        }),
      ],
    },
  ],
};
