// Go's strconv.ParseInt(s, 10, bitSize): what the parameter codec converts integer query
// parameters with, so its error text is what clients show for a bad one.
import { goQuote } from "./go-quote.js";

export type ParsedInt = { ok: true; value: bigint } | { ok: false; error: string };

/** A sign, then decimal digits, within the signed range of `bitSize` bits; else Go's error. */
export function parseGoInt(s: string, bitSize = 64): ParsedInt {
  if (!/^[+-]?[0-9]+$/.test(s)) return { ok: false, error: `strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax` };
  const value = BigInt(s);
  const max = 2n ** BigInt(bitSize - 1);
  if (value < -max || value >= max) return { ok: false, error: `strconv.ParseInt: parsing ${goQuote(s)}: value out of range` };
  return { ok: true, value };
}
