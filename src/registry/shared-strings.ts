// Equal string values of cached objects held once. Objects of one kind repeat many values — a
// pod's image, scheduler, DNS policy, volume paths, condition types and times — and JSON.parse makes
// a fresh copy of each for every object (about 1 KB per pod). The table is bounded: when full it
// starts afresh, so values met once (names, uids) do not pile up, and a common value is held about
// once per fill rather than once per object.

/** Longer values are rarely repeated (and a repeated long value is best shared by shareUnchanged). */
const maxLength = 256;
const maxEntries = 50_000;

let table = new Map<string, string>();

/**
 * Replaces the string values in a freshly decoded JSON value by equal ones already held (in place).
 * Parts that are `prev`'s own (shared by shareUnchanged) were interned when prev was: skipped.
 */
export function shareStrings(v: unknown, prev?: unknown): void {
  if (v === null || typeof v !== "object" || v === prev || Object.isFrozen(v)) return;
  const p = prev !== null && typeof prev === "object" ? (prev as Record<string, unknown>) : undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === "string") v[i] = held(x);
      else shareStrings(x, p?.[i]);
    }
    return;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (typeof x === "string") o[k] = held(x);
    else shareStrings(x, p?.[k]);
  }
}

function held(s: string): string {
  if (s.length > maxLength || s.length < 2) return s;
  const h = table.get(s);
  if (h !== undefined) return h;
  if (table.size >= maxEntries) table = new Map();
  table.set(s, s);
  return s;
}
