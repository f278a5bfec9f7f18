// Random (version 4) UUIDs, as node:crypto's randomUUID() makes them and Go's uuid.New() does, for
// what is made on every request or write: an Audit-Id, an object's uid, an admission review's uid.
// randomUUID() builds its text from ~20 concatenated pieces (a tree of string objects, then a
// flattened copy: ~600 bytes per call); this writes the digits into one reused buffer and makes
// one string of it. The bytes are crypto-strong, drawn from a pool refilled by randomFillSync.
import { randomFillSync } from "node:crypto";

const perRefill = 256;
const pool = Buffer.allocUnsafe(16 * perRefill);
let used = perRefill;
const text = Buffer.from("00000000-0000-0000-0000-000000000000", "latin1");
const digits = Buffer.from("0123456789abcdef", "latin1");
/** Where each of the 16 bytes' two hex digits go in the text (the dashes stay). */
const offsets = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

export function newUUID(): string {
  if (used === perRefill) {
    randomFillSync(pool);
    used = 0;
  }
  const from = 16 * used++;
  for (let i = 0; i < 16; i++) {
    let b = pool[from + i]!;
    if (i === 6) b = (b & 0x0f) | 0x40; // version 4
    else if (i === 8) b = (b & 0x3f) | 0x80; // RFC 4122 variant
    const at = offsets[i]!;
    text[at] = digits[b >> 4]!;
    text[at + 1] = digits[b & 15]!;
  }
  return text.toString("latin1", 0, 36);
}
