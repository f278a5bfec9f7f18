// Query options shared by the write verbs (upstream CreateOptions/UpdateOptions/PatchOptions).
import { invalid } from "../apimachinery/errors.js";
import { notSupported, type FieldError } from "../apimachinery/validation.js";

/** dryRun: absent, or "All" (repeatable). Anything else → 422 Invalid on <Kind>Options. */
export function parseDryRun(q: URLSearchParams, optionsKind: string): boolean {
  const values = q.getAll("dryRun");
  if (values.length === 0 || values.every((v) => v === "")) return false;
  const errs: FieldError[] = [];
  for (const v of values) if (v !== "All" && v !== "") errs.push(notSupported("dryRun", v, ["All"]));
  if (errs.length > 0) throw invalid({ group: "meta.k8s.io", kind: optionsKind }, "", errs);
  return true;
}
