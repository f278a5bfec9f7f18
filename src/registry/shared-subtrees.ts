// Equal parts of different cached objects held once. Objects made from one template — the pods of
// a ReplicaSet, the jobs of a CronJob — repeat most of their tree (containers, probes, volumes,
// tolerations, managedFields sets, conditions), and the watch cache keeps every object decoded:
// held once each, those parts would cost several times the object's JSON size per object.
//
// Each part below the root is replaced by an equal part already held, found bottom-up: a part's
// children are made shared first, so two parts are equal when their keys, their primitive values
// and their (shared) children are the same — one shallow comparison, no deep walk. The table keys
// parts by a hash, so it holds no copy of their text; a hash collision only misses a sharing.
// Shared parts are frozen: cached objects are read-only, and a write that slipped through would
// otherwise change every object sharing the part. The root stays unfrozen (it is one object's own).
// A part held by one object only is not frozen yet, so "frozen" means "shared already", and a
// frozen part's children are frozen too.
import { heldString } from "./shared-strings.js";

/** Bounded: when full it starts afresh, so parts met once do not pile up (a common part is held again once per fill). */
const maxEntries = 1 << 14;

let table = new Map<number, object>();

/** The hash of the value canonical() or hashFrozen() last looked at (saves a tuple per part). */
let lastHash = 0;

/** Replaces every part below the root of a freshly decoded object by an equal part already held (in place). */
export function shareSubtrees(root: Record<string, unknown>): void {
  for (const k in root) {
    const v = root[k];
    if (typeof v === "string") root[k] = heldString(v);
    else if (v !== null && typeof v === "object") root[k] = canonical(v);
  }
}

function canonical(v: object): object {
  // Frozen: shared already (a part the previous version kept, say); its children are too.
  if (Object.isFrozen(v)) {
    lastHash = hashFrozen(v);
    return v;
  }
  let h: number;
  if (Array.isArray(v)) {
    h = 0x2545f491 ^ v.length;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (x !== null && typeof x === "object") v[i] = canonical(x);
      h = mix(h, x !== null && typeof x === "object" ? lastHash : hashPrimitive(x));
    }
  } else {
    const o = v as Record<string, unknown>;
    h = 0x7f4a7c15;
    for (const k in o) {
      const x = o[k];
      if (x !== null && typeof x === "object") o[k] = canonical(x);
      h = mix(mix(h, hashKey(k)), x !== null && typeof x === "object" ? lastHash : hashPrimitive(x));
    }
  }
  lastHash = h;
  const held = table.get(h);
  if (held !== undefined && shallowEqual(held, v)) {
    // Shared from now on: frozen at its first sharing, not before — a part no other object has
    // (one holding a pod's own volume name, say) stays as JSON.parse made it, and V8 gives a
    // frozen object a shape of its own.
    if (!Object.isFrozen(held)) deepFreeze(held);
    return held;
  }
  // A part held from now on: its strings held once too (a part replaced by a held one needs none).
  holdStrings(v);
  if (table.size >= maxEntries) table = new Map();
  table.set(h, v);
  return v;
}

function deepFreeze(v: object): void {
  Object.freeze(v);
  for (const x of Object.values(v)) if (x !== null && typeof x === "object" && !Object.isFrozen(x)) deepFreeze(x as object);
}

function holdStrings(v: object): void {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (typeof v[i] === "string") v[i] = heldString(v[i] as string);
    return;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) if (typeof o[k] === "string") o[k] = heldString(o[k] as string);
}

/** The hash canonical() gives an equal unfrozen value, for a part that is shared already. */
function hashFrozen(v: object): number {
  let h: number;
  if (Array.isArray(v)) {
    h = 0x2545f491 ^ v.length;
    for (const x of v as unknown[]) h = mix(h, x !== null && typeof x === "object" ? hashFrozen(x) : hashPrimitive(x));
  } else {
    const o = v as Record<string, unknown>;
    h = 0x7f4a7c15;
    for (const k in o) {
      const x = o[k];
      h = mix(mix(h, hashKey(k)), x !== null && typeof x === "object" ? hashFrozen(x) : hashPrimitive(x));
    }
  }
  return h;
}

/** Same keys in the same order (a shared part is served as it was stored), values identical. */
function shallowEqual(a: object, b: object): boolean {
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const kb = Object.keys(b);
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let i = 0;
  for (const k in ra) {
    if (k !== kb[i++] || !Object.is(ra[k], rb[k])) return false;
  }
  return i === kb.length;
}

function mix(h: number, x: number): number {
  return Math.imul(h ^ x, 0x01000193) ^ (h >>> 15);
}

/** Property names repeat across every object of a kind: their hashes are kept (JSON.parse interns them, so the lookup needs no pass over the name). */
const keyHashes = new Map<string, number>();

function hashKey(k: string): number {
  let h = keyHashes.get(k);
  if (h === undefined) {
    h = hashString(k);
    // Bounded: names made of values (managedFields' "k:{...}") do not pile up.
    if (keyHashes.size >= 1 << 12) keyHashes.clear();
    keyHashes.set(k, h);
  }
  return h;
}

/**
 * A long string is hashed by its length and its two ends: a certificate or an applied-configuration
 * annotation costs 64 steps, not thousands. Strings alike at both ends only share a table slot
 * (the comparison tells them apart; the later one is not shared).
 */
function hashString(s: string): number {
  let h = 0x811c9dc5 ^ s.length;
  if (s.length <= 64) {
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    return h;
  }
  for (let i = 0; i < 32; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  for (let i = s.length - 32; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

function hashPrimitive(x: unknown): number {
  switch (typeof x) {
    case "string":
      return hashString(x);
    case "number":
      return Number.isInteger(x) ? Math.imul(x | 0, 0x9e3779b1) ^ 0x1b873593 : hashString(String(x)) ^ 0x68e31da4;
    case "boolean":
      return x ? 0x3c6ef372 : 0x5bd1e995;
    default:
      return 0x0badf00d; // null
  }
}
