// The two ways kube-apiserver reads a boolean from text. They differ on purpose and clients
// depend on both: query options (force, orphanDependents, watch, ...) take anything but an
// explicit "no" as yes, so `?watch` and Python's `force=True` both mean true; flags, feature
// gates and `pretty` take only Go's strconv.ParseBool spellings.

/** Go's strconv.ParseBool: the listed spellings, or undefined for anything else. */
export function parseGoBool(s: string): boolean | undefined {
  switch (s) {
    case "1": case "t": case "T": case "true": case "TRUE": case "True":
      return true;
    case "0": case "f": case "F": case "false": case "FALSE": case "False":
      return false;
    default:
      return undefined;
  }
}

/**
 * A boolean query option's value (its first occurrence): false only for "0" or "false" in any
 * case; anything else, the empty string included, is true. Undefined when the option is absent,
 * which the pointer-typed options (orphanDependents, force, sendInitialEvents, ...) keep apart
 * from an explicit false.
 */
export function optionalQueryBool(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  return !(v === "0" || v.toLowerCase() === "false");
}

/** A boolean query option whose absence means false (watch, allowWatchBookmarks). */
export function queryBool(q: URLSearchParams, name: string): boolean {
  return optionalQueryBool(q, name) ?? false;
}
