// ObjectMeta's lists and maps are `omitempty` in Go: an empty one is not written, so a client
// never reads `ownerReferences: []` or `labels: {}` back. Every write body is normalised here once
// (the store's decode step), so a controller that filters a list down to nothing, a PUT that
// sends an empty list and a webhook patch that empties a map all store the field absent.
//
// managedFields is left alone: an empty list there is a request (reset ownership), read by the
// field manager after decode, not a value to store.
import { isPlainObject } from "../apimachinery/json-value.js";
import type { ObjectMeta } from "../apimachinery/object.js";

const lists = ["finalizers", "ownerReferences"] as const;
const maps = ["labels", "annotations"] as const;

/** Removes, in place, the omitempty lists and maps of `meta` that are null or empty. */
export function dropEmptyMetadata(meta: ObjectMeta): void {
  for (const k of lists) {
    const v = meta[k] as unknown;
    if (v === null || (Array.isArray(v) && v.length === 0)) delete meta[k];
  }
  for (const k of maps) {
    const v = meta[k] as unknown;
    if (v === null || (isPlainObject(v) && Object.keys(v).length === 0)) delete meta[k];
  }
}
