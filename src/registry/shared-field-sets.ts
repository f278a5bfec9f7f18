// The field sets of managedFields (fieldsV1) held once per distinct set. Objects made from one
// template by one manager — every pod of a ReplicaSet — record the very same sets, and decoded they
// are the largest part of a cached object (a pod's two sets take ~4.8 KB of heap, more than the
// rest of the pod). The watch cache keeps every object decoded, so it swaps each decoded set for
// the one already held. Shared sets are frozen: cached objects are read-only, and a write that
// slipped through would otherwise change every object sharing the set.
import type { KObject } from "../apimachinery/object.js";

/** Set text → the set, held weakly: a set no cached object uses any more is collected. */
const sets = new Map<string, WeakRef<object>>();
const forget = new FinalizationRegistry<string>((text) => {
  if (sets.get(text)?.deref() === undefined) sets.delete(text);
});

/** Replaces the object's decoded field sets by equal ones already shared (in place: call on a freshly decoded object). */
export function shareFieldSets(obj: KObject): void {
  const entries = obj.metadata?.managedFields;
  if (!Array.isArray(entries)) return;
  for (const e of entries) {
    const set = (e as { fieldsV1?: unknown } | undefined)?.fieldsV1;
    // Frozen: shared already (taken from the previous version).
    if (set === null || typeof set !== "object" || Object.isFrozen(set)) continue;
    const text = JSON.stringify(set);
    const held = sets.get(text)?.deref();
    if (held) {
      (e as { fieldsV1?: unknown }).fieldsV1 = held;
      continue;
    }
    deepFreeze(set);
    sets.set(text, new WeakRef(set));
    forget.register(set, text);
  }
}

/** How many distinct field sets are held (tests). */
export function sharedFieldSetCount(): number {
  return sets.size;
}

function deepFreeze(v: object): void {
  for (const x of Object.values(v)) if (x !== null && typeof x === "object") deepFreeze(x as object);
  Object.freeze(v);
}
