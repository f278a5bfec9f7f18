// Equal string values of cached objects held once. Objects of one kind repeat many values — a
// pod's image, scheduler, DNS policy, volume paths, condition types and times — and JSON.parse makes
// a fresh copy of each for every object (about 1 KB per pod). The table is bounded: when full it
// starts afresh, so values met once (names, uids) do not pile up, and a common value is held about
// once per fill rather than once per object.

/** Longer values are rarely repeated (and a repeated long value is best shared by shareUnchanged). */
const maxLength = 256;
const maxEntries = 1 << 14;

let table = new Map<string, string>();

/** `s`, or an equal string already held. */
export function heldString(s: string): string {
  if (s.length > maxLength || s.length < 2) return s;
  const h = table.get(s);
  if (h !== undefined) return h;
  if (table.size >= maxEntries) table = new Map();
  table.set(s, s);
  return s;
}
