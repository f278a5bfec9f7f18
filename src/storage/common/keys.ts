// Key ordering shared by every backend. Storage promises "sorted by key (byte order)", i.e. the
// order of the UTF-8 encodings, which is code-point order. JavaScript's `<` compares UTF-16 code
// units, which disagrees only when a surrogate (U+D800–DFFF) meets U+E000–FFFF; we fix that case
// instead of encoding every key to bytes.

/** Code units from U+D800 up: only where both keys hold one can the two orders disagree. */
const highUnits = /[\ud800-\uffff]/;

/** Compare two keys in UTF-8 byte order (negative, zero, positive). */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  // The native comparison (every key kapi writes is ASCII): a loop of charCodeAt costs ~5 ms of
  // a start, where the code still runs in V8's interpreter.
  if (!highUnits.test(a) || !highUnits.test(b)) return a < b ? -1 : 1;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let ca = a.charCodeAt(i);
    let cb = b.charCodeAt(i);
    if (ca === cb) continue;
    if (ca >= 0xd800 && cb >= 0xd800) {
      // Surrogates encode code points above U+FFFF, so they sort after U+E000–FFFF.
      ca = ca < 0xe000 ? ca + 0x2000 : ca - 0x800;
      cb = cb < 0xe000 ? cb + 0x2000 : cb - 0x800;
    }
    return ca - cb;
  }
  return a.length - b.length;
}

/**
 * The smallest key greater than every key that starts with `prefix`, or undefined when there is
 * none (empty prefix). Lets SQL answer a prefix query as an index range `key >= p AND key < end`
 * rather than a scan. Incrementing the last code point works because UTF-8 preserves code-point
 * order; U+10FFFF cannot be incremented, so it is dropped and the one before is incremented.
 */
export function prefixEnd(prefix: string): string | undefined {
  const cps = Array.from(prefix);
  while (cps.length > 0) {
    const last = cps.pop()!.codePointAt(0)!;
    if (last === 0x10ffff) continue;
    const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
    return cps.join("") + String.fromCodePoint(next);
  }
  return undefined;
}
