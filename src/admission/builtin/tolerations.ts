// Toleration merging (upstream pkg/util/tolerations): two lists become one where a toleration
// that another one covers is dropped; of equal ones the first stays.
import { isDeepStrictEqual } from "node:util";
import { str, type Obj } from "./pod-shape.js";

/** Does `ss` tolerate everything `t` does? */
export function isSuperset(ss: Obj, t: Obj): boolean {
  if (isDeepStrictEqual(ss, t)) return true;
  // An empty key with Exists tolerates every key.
  if (str(t.key) !== str(ss.key) && (str(ss.key) !== "" || ss.operator !== "Exists")) return false;
  // An empty effect tolerates every effect.
  if (str(t.effect) !== str(ss.effect) && str(ss.effect) !== "") return false;
  if (ss.effect === "NoExecute" && typeof ss.tolerationSeconds === "number") {
    if (typeof t.tolerationSeconds !== "number" || t.tolerationSeconds > ss.tolerationSeconds) return false;
  }
  switch (str(ss.operator)) {
    case "Equal":
    case "":
      return t.operator === "Equal" && str(t.value) === str(ss.value);
    case "Exists":
      return true;
    default:
      return false;
  }
}

export function mergeTolerations(first: readonly Obj[], second: readonly Obj[]): Obj[] {
  const all = [...first, ...second];
  const merged: Obj[] = [];
  all.forEach((t, i) => {
    if (merged.some((m) => isSuperset(m, t))) return;
    if (all.slice(i + 1).some((later) => !isDeepStrictEqual(t, later) && isSuperset(later, t))) return;
    merged.push(t);
  });
  return merged;
}
