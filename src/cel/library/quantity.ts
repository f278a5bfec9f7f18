// The Kubernetes quantity library (k8s.io/apiserver/pkg/cel/library, quantity; on since 1.28):
// quantity(), isQuantity(), sign, isInteger, asInteger, asApproximateFloat, add/sub (quantity or
// int), isLessThan, isGreaterThan, compareTo, and `==` between quantities.
//
// Why a parser of its own rather than src/apimachinery/quantity.ts: CEL results depend on details
// that helper (written for canonical printing of stored objects) does not model — upstream's
// ParseQuantity does not trim blanks (" 1" is an error here), accepts "-", "." and "1.G", keeps a
// value either as a scaled int64 or as an arbitrary-precision decimal, and `isInteger()` /
// `asInteger()` answer by that representation (quantity("1.0").isInteger() is false upstream,
// quantity("1.5Gi").add(...) stays a decimal), caps binary-suffixed values at 2^63-1 and rounds to
// nano units only on the decimal path. This module mirrors resource.Quantity for exactly that.
import { memberOverload, overload, type CelLibrary } from "../library.js";
import { BoolType, DoubleType, IntType, opaque, StringType } from "../types.js";
import type { CelOpaque, CelValue } from "../value.js";
import { celError, nominalCost, stringParseCost } from "./k8s-common.js";

export const QuantityType = opaque("kubernetes.Quantity");

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const NANO = -9;

const FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const NUMERIC = "unable to parse numeric part of quantity";
const SUFFIX = "unable to parse quantity's suffix";

/** value * 10^scale, value an int64 (resource's int64Amount). */
interface IntAmount {
  readonly kind: "int";
  readonly value: bigint;
  readonly scale: number;
}
/** unscaled * 10^-decScale, arbitrary precision (resource's infDecAmount / inf.Dec). */
interface DecAmount {
  readonly kind: "dec";
  readonly unscaled: bigint;
  readonly decScale: number;
}
type Amount = IntAmount | DecAmount;

const intAmount = (value: bigint, scale: number): IntAmount => ({ kind: "int", value, scale });
const decAmount = (unscaled: bigint, decScale: number): DecAmount => ({ kind: "dec", unscaled, decScale });

function fitsInt64(v: bigint): boolean {
  return v >= INT64_MIN && v <= INT64_MAX;
}

/** Go's int64Multiply: the product when it fits (the most negative value only times 0 or 1). */
function int64Multiply(a: bigint, b: bigint): bigint | undefined {
  if (a === 0n || b === 0n || a === 1n || b === 1n) return a * b;
  if (a === INT64_MIN || b === INT64_MIN) return undefined;
  const c = a * b;
  return fitsInt64(c) ? c : undefined;
}

function int64Add(a: bigint, b: bigint): bigint | undefined {
  const c = a + b;
  return fitsInt64(c) ? c : undefined;
}

function positiveScaleInt64(base: bigint, scale: number): bigint | undefined {
  let v: bigint | undefined = base;
  for (let i = 0; i < scale && v !== undefined; i++) v = int64Multiply(v, 10n);
  return v;
}

/** int64Amount.Add; undefined when it overflows (the caller then switches to decimals). */
function addInt(a: IntAmount, b: IntAmount): IntAmount | undefined {
  if (b.value === 0n) return a;
  if (a.value === 0n) return b;
  if (a.scale === b.scale) {
    const c = int64Add(a.value, b.value);
    return c === undefined ? undefined : intAmount(c, a.scale);
  }
  if (a.scale > b.scale) {
    const s = positiveScaleInt64(a.value, a.scale - b.scale);
    const c = s === undefined ? undefined : int64Add(s, b.value);
    return c === undefined ? undefined : intAmount(c, b.scale);
  }
  const s = positiveScaleInt64(b.value, b.scale - a.scale);
  const c = s === undefined ? undefined : int64Add(a.value, s);
  return c === undefined ? undefined : intAmount(c, a.scale);
}

function toDec(a: Amount): DecAmount {
  return a.kind === "dec" ? a : decAmount(a.value, -a.scale);
}

function alignDec(a: DecAmount, b: DecAmount): [bigint, bigint, number] {
  const s = Math.max(a.decScale, b.decScale);
  // upstream (inf.Dec) would build a number with this many digits; kapi refuses instead
  if (Math.abs(a.decScale - b.decScale) > MAX_DIGITS) celError(NUMERIC);
  return [a.unscaled * 10n ** BigInt(s - a.decScale), b.unscaled * 10n ** BigInt(s - b.decScale), s];
}

const digits = (v: bigint): number => (v < 0n ? -v : v).toString().length;

/** Exact comparison (resource.Quantity.Cmp), deciding by order of magnitude first. */
function cmpAmount(a: Amount, b: Amount): number {
  const x = toDec(a);
  const y = toDec(b);
  const sx = x.unscaled > 0n ? 1 : x.unscaled < 0n ? -1 : 0;
  const sy = y.unscaled > 0n ? 1 : y.unscaled < 0n ? -1 : 0;
  if (sx !== sy) return sx > sy ? 1 : -1;
  if (sx === 0) return 0;
  const mx = digits(x.unscaled) - x.decScale;
  const my = digits(y.unscaled) - y.decScale;
  if (mx !== my) return (mx > my ? 1 : -1) * sx;
  const [p, q] = alignDec(x, y);
  return p < q ? -1 : p > q ? 1 : 0;
}

function signOf(a: Amount): number {
  const v = a.kind === "int" ? a.value : a.unscaled;
  return v > 0n ? 1 : v < 0n ? -1 : 0;
}

// Go's math.Pow10, table for table, so products round exactly as upstream's.
const POW10_TAB = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POS32 = [1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288];
const POW10_NEG32 = [1e-0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320];
function pow10(n: number): number {
  if (n >= 0 && n <= 308) return POW10_POS32[Math.floor(n / 32)]! * POW10_TAB[n % 32]!;
  if (n < 0 && n >= -323) return POW10_NEG32[Math.floor(-n / 32)]! / POW10_TAB[-n % 32]!;
  return n > 0 ? Infinity : 0;
}

/** A kubernetes.Quantity value. */
export class Quantity implements CelOpaque {
  readonly celType = QuantityType;
  /**
   * Upstream returns quantity() results as values and add()/sub() results as pointers, and its
   * Equal only accepts a value on the right: `q.add(1) == quantity("2")` is true but
   * `quantity("2") == q.add(1)` is false. Kept so results match kube-apiserver.
   */
  constructor(
    readonly amount: Amount,
    readonly fromArithmetic = false,
  ) {}

  equals(other: CelOpaque): boolean {
    if (!(other instanceof Quantity) || other.fromArithmetic) return false;
    return cmpAmount(this.amount, other.amount) === 0;
  }

  compare(other: Quantity): number {
    return cmpAmount(this.amount, other.amount);
  }

  sign(): number {
    return signOf(this.amount);
  }

  /** resource.Quantity.AsInt64: only a scaled int64 with a non-negative scale that fits converts. */
  asInt64(): bigint | undefined {
    const a = this.amount;
    if (a.kind === "dec") return undefined;
    if (a.scale === 0) return a.value;
    if (a.scale < 0) return undefined;
    return positiveScaleInt64(a.value, a.scale);
  }

  asApproximateFloat(): number {
    const a = this.amount;
    const base = Number(a.kind === "int" ? a.value : a.unscaled);
    const exponent = a.kind === "int" ? a.scale : -a.decScale;
    return exponent === 0 ? base : base * pow10(exponent);
  }

  add(y: Amount): Quantity {
    const x = this.amount;
    if (x.kind === "int" && y.kind === "int") {
      const r = addInt(x, y);
      if (r) return new Quantity(r, true);
    }
    const [a, b, s] = alignDec(toDec(x), toDec(y));
    return new Quantity(decAmount(a + b, s), true);
  }

  sub(y: Amount): Quantity {
    const x = this.amount;
    if (x.kind === "int" && y.kind === "int") {
      const r = addInt(x, intAmount(BigInt.asIntN(64, -y.value), y.scale));
      if (r) return new Quantity(r, true);
    }
    const [a, b, s] = alignDec(toDec(x), toDec(y));
    return new Quantity(decAmount(a - b, s), true);
  }
}

type Format = "DecimalExponent" | "BinarySI" | "DecimalSI";

const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const SUFFIX_CHARS = "eEinumkKMGTP";

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

interface Scanned {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

/** resource.parseQuantityString. */
function scan(str: string): Scanned {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === "-") {
    positive = false;
    pos++;
  } else if (str[0] === "+") pos++;
  while (pos < end && str[pos] === "0") pos++;
  if (pos >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  let num = str.slice(pos, i);
  if (i >= end) return { positive, value: str, num, denom: "", suffix: "" };
  pos = i;
  if (num === "") num = "0";
  let denom = "";
  if (str[pos] === ".") {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: "" };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && SUFFIX_CHARS.includes(str[i]!)) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === "-" || str[pos] === "+") pos++;
  i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  return celError(FORMAT_WRONG);
}

/** quantitySuffixer.interpret: base, exponent and format of a suffix. */
function interpret(suffix: string): { base: 10 | 2; exponent: number; format: Format } {
  const dec = DECIMAL_SUFFIXES[suffix];
  if (dec !== undefined && Object.hasOwn(DECIMAL_SUFFIXES, suffix)) return { base: 10, exponent: dec, format: "DecimalSI" };
  const bin = BINARY_SUFFIXES[suffix];
  if (bin !== undefined && Object.hasOwn(BINARY_SUFFIXES, suffix)) return { base: 2, exponent: bin, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "E" || suffix[0] === "e")) {
    const digits = suffix.slice(1);
    if (/^[+-]?[0-9]+$/.test(digits)) {
      const parsed = BigInt(digits);
      // strconv.ParseInt(…, 64) then int32(): out of int64 is an error, then truncation
      if (fitsInt64(parsed)) return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: "DecimalExponent" };
    }
  }
  return celError(SUFFIX);
}

/** Beyond this many decimal digits kapi refuses a quantity rather than building a huge number. */
const MAX_DIGITS = 100_000;

/** inf.Dec.SetString of the scanned number part. */
function parseDec(value: string): DecAmount {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(value);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return celError(NUMERIC);
  const frac = m[3] ?? "";
  const unscaled = BigInt((m[2]! + frac) || "0");
  return decAmount(m[1] === "-" ? -unscaled : unscaled, frac.length);
}

/** resource.ParseQuantity; throws CelEvalError with upstream's message. */
export function parseQuantity(str: string): Quantity {
  if (str.length === 0) celError(FORMAT_WRONG);
  if (str === "0") return new Quantity(intAmount(0n, 0));
  const { positive, value, num, denom, suffix } = scan(str);
  const { base, exponent, format } = interpret(suffix);

  let precision = 0;
  let scale = 0;
  let mantissa = 1n;
  if (format === "BinarySI") {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = BigInt.asIntN(64, 1n << BigInt(exponent));
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const shifted = BigInt(num + denom);
      if (!fitsInt64(shifted)) celError(NUMERIC);
      const result = int64Multiply(shifted, mantissa);
      if (result !== undefined) return new Quantity(intAmount(positive ? result : -result, scale));
    }
  }

  const parsed = parseDec(value);
  let unscaled = parsed.unscaled;
  let decScale = parsed.decScale;
  if (base === 10) decScale -= exponent;
  else unscaled *= 1n << BigInt(exponent);
  const negative = unscaled < 0n;
  if (negative) unscaled = -unscaled;
  if (unscaled !== 0n) {
    // round up (away from zero) to nano units
    if (decScale > 9) {
      const drop = decScale - 9;
      if (drop > unscaled.toString().length) unscaled = 1n;
      else {
        const div = 10n ** BigInt(drop);
        const q = unscaled / div;
        unscaled = unscaled % div === 0n ? q : q + 1n;
      }
    } else if (decScale < 9) {
      if (9 - decScale > MAX_DIGITS) celError(NUMERIC);
      unscaled *= 10n ** BigInt(9 - decScale);
    }
    decScale = 9;
  }
  if (format === "BinarySI" && unscaled > INT64_MAX * 10n ** BigInt(decScale)) {
    unscaled = INT64_MAX;
    decScale = 0;
  }
  return new Quantity(decAmount(negative ? -unscaled : unscaled, decScale));
}

const asQuantity = (v: CelValue): Quantity => v as unknown as Quantity;

export const quantityLibrary: CelLibrary = {
  name: "kubernetes.quantity",
  functions: [
    {
      name: "quantity",
      overloads: [overload("string_to_quantity", [StringType], QuantityType, ([s]) => parseQuantity(s as string), { cost: stringParseCost(0) })],
    },
    {
      name: "isQuantity",
      overloads: [
        overload(
          "is_quantity_string",
          [StringType],
          BoolType,
          ([s]) => {
            try {
              parseQuantity(s as string);
              return true;
            } catch {
              return false;
            }
          },
          { cost: stringParseCost(0) },
        ),
      ],
    },
    {
      name: "sign",
      // Declared global upstream (cel.Overload, not MemberOverload): `sign(q)` type-checks,
      // `q.sign()` does not, although upstream's documentation writes the latter.
      overloads: [overload("quantity_sign", [QuantityType], IntType, ([q]) => BigInt(asQuantity(q!).sign()), { cost: nominalCost })],
    },
    {
      name: "isGreaterThan",
      overloads: [memberOverload("quantity_is_greater_than", [QuantityType, QuantityType], BoolType, ([a, b]) => asQuantity(a!).compare(asQuantity(b!)) === 1, { cost: nominalCost })],
    },
    {
      name: "isLessThan",
      overloads: [memberOverload("quantity_is_less_than", [QuantityType, QuantityType], BoolType, ([a, b]) => asQuantity(a!).compare(asQuantity(b!)) === -1, { cost: nominalCost })],
    },
    {
      name: "compareTo",
      overloads: [memberOverload("quantity_compare_to", [QuantityType, QuantityType], IntType, ([a, b]) => BigInt(asQuantity(a!).compare(asQuantity(b!))), { cost: nominalCost })],
    },
    {
      name: "asApproximateFloat",
      overloads: [memberOverload("quantity_get_float", [QuantityType], DoubleType, ([q]) => asQuantity(q!).asApproximateFloat(), { cost: nominalCost })],
    },
    {
      name: "asInteger",
      overloads: [
        memberOverload(
          "quantity_get_int",
          [QuantityType],
          IntType,
          ([q]) => asQuantity(q!).asInt64() ?? celError("cannot convert value to integer"),
          { cost: nominalCost },
        ),
      ],
    },
    {
      name: "isInteger",
      overloads: [memberOverload("quantity_is_integer", [QuantityType], BoolType, ([q]) => asQuantity(q!).asInt64() !== undefined, { cost: nominalCost })],
    },
    {
      name: "add",
      overloads: [
        memberOverload("quantity_add", [QuantityType, QuantityType], QuantityType, ([a, b]) => asQuantity(a!).add(asQuantity(b!).amount), { cost: nominalCost }),
        memberOverload("quantity_add_int", [QuantityType, IntType], QuantityType, ([a, b]) => asQuantity(a!).add(intAmount(b as bigint, 0)), { cost: nominalCost }),
      ],
    },
    {
      name: "sub",
      overloads: [
        memberOverload("quantity_sub", [QuantityType, QuantityType], QuantityType, ([a, b]) => asQuantity(a!).sub(asQuantity(b!).amount), { cost: nominalCost }),
        memberOverload("quantity_sub_int", [QuantityType, IntType], QuantityType, ([a, b]) => asQuantity(a!).sub(intAmount(b as bigint, 0)), { cost: nominalCost }),
      ],
    },
  ],
};
