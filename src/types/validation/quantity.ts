// resource.Quantity comparison for validation (requests <= limits, QoS): values as exact fractions.
const QUANTITY_RE = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei)|([numkMGTPE]))?$/;
const BIN: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DEC: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

export interface Fraction {
  n: bigint;
  d: bigint;
}

export function parseQuantity(input: unknown): Fraction | undefined {
  const s = typeof input === "number" ? String(input) : typeof input === "string" ? input.trim() : undefined;
  if (s === undefined) return undefined;
  const m = QUANTITY_RE.exec(s);
  if (!m) return undefined;
  const [, sign, whole = "", frac = "", exp, bin, dec] = m;
  if (whole === "" && frac === "") return undefined;
  let n = BigInt(whole + frac || "0");
  let scale = -frac.length;
  if (exp !== undefined) scale += Number(exp);
  if (dec !== undefined) scale += DEC[dec]!;
  if (bin !== undefined) n *= 1024n ** BigInt(BIN[bin]!);
  let d = 1n;
  if (scale >= 0) n *= 10n ** BigInt(scale);
  else d = 10n ** BigInt(-scale);
  if (sign === "-") n = -n;
  return { n, d };
}

/** -1, 0, 1 like Quantity.Cmp; unparseable values compare as 0. */
export function compareQuantity(a: unknown, b: unknown): number {
  const x = parseQuantity(a) ?? { n: 0n, d: 1n };
  const y = parseQuantity(b) ?? { n: 0n, d: 1n };
  const l = x.n * y.d;
  const r = y.n * x.d;
  return l < r ? -1 : l > r ? 1 : 0;
}

export function isZeroQuantity(a: unknown): boolean {
  return (parseQuantity(a)?.n ?? 0n) === 0n;
}
