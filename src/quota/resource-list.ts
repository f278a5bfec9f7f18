// Resource lists as quota does arithmetic on them (upstream: apiserver/pkg/quota/v1 resources.go
// and resource.Quantity.Add / Sub). A quantity keeps its exact value and its format, because the
// format decides how it prints in status.used and in the "exceeded quota" message: a sum takes
// the format of its left operand unless that one is zero (then the right one's), as Quantity.Add.
import { formatQuantity, parseQuantity, type Fraction } from "../apimachinery/quantity.js";

export type QuantityFormat = "BinarySI" | "DecimalSI" | "DecimalExponent";

export interface Quantity {
  /** Exact value; the denominator is a power of ten (quantities have nano precision). */
  value: Fraction;
  format: QuantityFormat;
}

export type ResourceList = Map<string, Quantity>;

const zeroFraction: Fraction = { n: 0n, d: 1n };

function formatOf(s: string): QuantityFormat {
  const t = s.trim();
  if (/(Ki|Mi|Gi|Ti|Pi|Ei)$/.test(t)) return "BinarySI";
  if (/\d[eE][+-]?\d+$/.test(t)) return "DecimalExponent";
  return "DecimalSI";
}

/** A quantity from its JSON form (string or number); undefined when it does not parse. */
export function quantityOf(input: unknown): Quantity | undefined {
  const value = parseQuantity(input);
  if (!value) return undefined;
  return { value, format: typeof input === "string" ? formatOf(input) : "DecimalSI" };
}

export function integerQuantity(n: number | bigint): Quantity {
  return { value: { n: BigInt(n), d: 1n }, format: "DecimalSI" };
}

export const zeroQuantity = (format: QuantityFormat = "DecimalSI"): Quantity => ({ value: zeroFraction, format });

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function reduce(f: Fraction): Fraction {
  if (f.n === 0n) return zeroFraction;
  const g = gcd(f.n, f.d);
  return { n: f.n / g, d: f.d / g };
}

const sign = (q: Quantity) => (q.value.n === 0n ? 0 : q.value.n > 0n ? 1 : -1);

export function cmp(a: Quantity, b: Quantity): number {
  const l = a.value.n * b.value.d;
  const r = b.value.n * a.value.d;
  return l < r ? -1 : l > r ? 1 : 0;
}

export function add(a: Quantity, b: Quantity): Quantity {
  const value = reduce({ n: a.value.n * b.value.d + b.value.n * a.value.d, d: a.value.d * b.value.d });
  return { value, format: sign(a) === 0 ? b.format : a.format };
}

export function sub(a: Quantity, b: Quantity): Quantity {
  return add(a, { value: { n: -b.value.n, d: b.value.d }, format: b.format });
}

/** Rounded up to a whole number (Quantity.RoundUp(0): storage counts whole bytes). */
export function roundUpToInteger(q: Quantity): Quantity {
  const { n, d } = q.value;
  if (n % d === 0n) return q;
  const whole = n / d + (n > 0n ? 1n : 0n);
  return { value: { n: whole, d: 1n }, format: q.format };
}

/** The decimal digits of an exact fraction whose denominator divides a power of ten. */
function decimalText(f: Fraction): string {
  const neg = f.n < 0n;
  let n = neg ? -f.n : f.n;
  // The smallest power of ten the denominator divides (a 2^a·5^b for sums of quantities); past
  // nano units the value is rounded up, as quantities are.
  let scale = 0;
  let pow = 1n;
  while (pow % f.d !== 0n && scale < 9) {
    pow *= 10n;
    scale++;
  }
  n = pow % f.d === 0n ? n * (pow / f.d) : (n * pow + f.d - 1n) / f.d;
  let digits = n.toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, "0");
    digits = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  }
  return (neg ? "-" : "") + digits;
}

/** Quantity.String(): the canonical form in the quantity's format. */
export function formatQ(q: Quantity): string {
  const text = decimalText(q.value);
  if (q.format === "BinarySI" && q.value.d === 1n) {
    const abs = q.value.n < 0n ? -q.value.n : q.value.n;
    if (abs >= 1024n) {
      const units = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
      let v = abs;
      let e = 0;
      while (e < 6 && v % 1024n === 0n) {
        v /= 1024n;
        e++;
      }
      return `${q.value.n < 0n ? "-" : ""}${v}${units[e]}`;
    }
  }
  if (q.format === "DecimalExponent") return formatQuantity(`${text}e0`);
  return formatQuantity(text);
}

// ---- lists

/** A resource list from its JSON form (spec.hard, status.used, container requests); bad values are skipped. */
export function resourceListOf(obj: unknown): ResourceList {
  const out: ResourceList = new Map();
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) return out;
  for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
    const q = quantityOf(v);
    if (q) out.set(k, q);
  }
  return out;
}

/** The JSON form, keys sorted (as Go marshals maps). */
export function resourceListJson(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...list.keys()].sort()) out[k] = formatQ(list.get(k)!);
  return out;
}

/** quota.Add: every key of either; sums where both have it. */
export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [k, v] of b) out.set(k, out.has(k) ? add(out.get(k)!, v) : v);
  return out;
}

/** quota.SubtractWithNonNegativeResult: a's keys, a-b floored at zero. */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of a) {
    const other = b.get(k);
    if (!other) {
      out.set(k, v);
      continue;
    }
    const d = sub(v, other);
    out.set(k, sign(d) < 0 ? zeroQuantity(v.format) : d);
  }
  for (const [k, v] of b) if (!out.has(k)) out.set(k, zeroQuantity(v.format));
  return out;
}

/** quota.Mask: only the named keys. */
export function mask(list: ResourceList, names: Iterable<string>): ResourceList {
  const keep = new Set(names);
  const out: ResourceList = new Map();
  for (const [k, v] of list) if (keep.has(k)) out.set(k, v);
  return out;
}

/** quota.RemoveZeros. */
export function removeZeros(list: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [k, v] of list) if (sign(v) !== 0) out.set(k, v);
  return out;
}

/** quota.IsNegative: the names of negative values. */
export function negativeNames(list: ResourceList): string[] {
  return [...list].filter(([, v]) => sign(v) < 0).map(([k]) => k);
}

/** quota.LessThanOrEqual: a ≤ b for every key of a that b limits; the keys that are over. */
export function exceededNames(a: ResourceList, b: ResourceList): string[] {
  const over: string[] = [];
  for (const [k, v] of a) {
    const limit = b.get(k);
    if (limit && cmp(v, limit) > 0) over.push(k);
  }
  return over;
}

/** quota.Equals: same keys, same values. */
export function listsEqual(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const o = b.get(k);
    if (!o || cmp(v, o) !== 0) return false;
  }
  return true;
}

/** prettyPrint of the quota messages: `k=v` sorted by name, joined by commas. */
export function prettyPrint(list: ResourceList): string {
  return [...list.keys()].sort().map((k) => `${k}=${formatQ(list.get(k)!)}`).join(",");
}
