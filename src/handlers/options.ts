// Query options shared by the write verbs (upstream CreateOptions/UpdateOptions/PatchOptions).
import { invalid } from "../apimachinery/errors.js";
import { goQuote } from "../apimachinery/go-quote.js";
import { GoSyntaxValue, notSupported, type FieldError } from "../apimachinery/validation.js";

/** dryRun from the query: absent, or "All" (repeatable). Anything else → 422 Invalid on <Kind>Options. */
export function parseDryRun(q: URLSearchParams, optionsKind: string): boolean {
  return checkDryRun(q.getAll("dryRun"), optionsKind);
}

/** Whether the options' dryRun list asks for a dry run; throws upstream's 422 when it is not valid (see dryRunErrors). */
function checkDryRun(values: readonly string[], optionsKind: string): boolean {
  const errs = dryRunErrors(values);
  if (errs.length > 0) throw invalid({ group: "meta.k8s.io", kind: optionsKind }, "", errs);
  return values.length > 0;
}

/**
 * upstream's ValidateDryRun over the options' dryRun list (from the query, or a DeleteOptions
 * body): every value must be "All" — an empty one too (`?dryRun=` is the list [""]) — and the
 * error shows the whole list as Go prints a []string.
 */
export function dryRunErrors(values: readonly string[]): FieldError[] {
  if (values.every((v) => v === "All")) return [];
  return [notSupported("dryRun", new GoSyntaxValue(`[]string{${values.map((v) => goQuote(v)).join(", ")}}`), ["All"])];
}
