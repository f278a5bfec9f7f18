// Ordering, equality, sizes and type names of runtime CEL values, as the list, set, string and
// authorizer libraries need them. Semantics follow cel-go's value types: numbers order and compare
// equal across int, uint and double (cross-type numeric comparison); strings, bytes, booleans,
// timestamps and durations order only within their own type; equality is CEL's heterogeneous
// equality (values of different kinds are simply unequal, never an error).
import {
  CelDuration,
  CelEvalError,
  CelMap,
  CelTimestamp,
  CelUint,
  type CelOpaque,
  type CelValue,
} from "../value.js";
import { celEquals, compareStrings, isOpaque, noSuchOverload, typeNameOf as celTypeName } from "../stdlib/values.js";

// Equality, string order, type names and the overload error are the standard library's own.
export { celEquals, celTypeName, compareStrings, isOpaque, noSuchOverload };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

export function isCelList(v: CelValue): v is readonly CelValue[] {
  return Array.isArray(v);
}


/**
 * cel-go's `Compare`: -1, 0 or 1, or undefined where cel-go answers with an error (no such
 * overload between the two kinds, or a NaN double on the left or on a double right side).
 * Int/uint against double converts the integer to a double, as cel-go does.
 */
export function celCompare(a: CelValue, b: CelValue): -1 | 0 | 1 | undefined {
  switch (typeof a) {
    case "bigint":
      if (typeof b === "bigint") return cmp(a, b);
      if (b instanceof CelUint) return a < 0n || b.value > INT64_MAX ? -1 : cmp(a, b.value);
      if (typeof b === "number") return negate(compareDoubleInt(b, a));
      return undefined;
    case "number":
      if (Number.isNaN(a)) return undefined;
      if (typeof b === "number") return Number.isNaN(b) ? undefined : cmp(a, b);
      if (typeof b === "bigint") return compareDoubleInt(a, b);
      if (b instanceof CelUint) return compareDoubleUint(a, b.value);
      return undefined;
    case "string":
      return typeof b === "string" ? (Math.sign(compareStrings(a, b)) as -1 | 0 | 1) : undefined;
    case "boolean":
      return typeof b === "boolean" ? (a === b ? 0 : a ? 1 : -1) : undefined;
  }
  if (a instanceof CelUint) {
    if (b instanceof CelUint) return cmp(a.value, b.value);
    if (typeof b === "bigint") return negate(b < 0n || a.value > INT64_MAX ? -1 : cmp(b, a.value));
    if (typeof b === "number") return negate(compareDoubleUint(b, a.value));
    return undefined;
  }
  if (a instanceof Uint8Array) return b instanceof Uint8Array ? compareBytes(a, b) : undefined;
  if (a instanceof CelTimestamp) return b instanceof CelTimestamp ? cmp(a.nanos, b.nanos) : undefined;
  if (a instanceof CelDuration) return b instanceof CelDuration ? cmp(a.nanos, b.nanos) : undefined;
  return undefined;
}

/** Whether cel-go's value of this kind implements ordering (traits.Comparer). */
export function isComparable(v: CelValue): boolean {
  switch (typeof v) {
    case "bigint":
    case "number":
    case "string":
    case "boolean":
      return true;
  }
  return v instanceof CelUint || v instanceof Uint8Array || v instanceof CelTimestamp || v instanceof CelDuration;
}

/** Whether `list` holds a value equal to `v` (CEL's `in` on lists). */
export function listContains(list: readonly CelValue[], v: CelValue): boolean {
  for (const x of list) if (celEquals(x, v)) return true;
  return false;
}

/**
 * cel-go's `Size()` of a value, as the cost trackers read it: characters (code points) of a
 * string, bytes, items of a list, entries of a map; 1 for anything else.
 */
export function actualSize(v: CelValue): number {
  if (typeof v === "string") return codePointLength(v);
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length;
  if (v instanceof CelMap) return v.size;
  return 1;
}

const surrogate = /[\uD800-\uDFFF]/;

export function hasSurrogates(s: string): boolean {
  return surrogate.test(s);
}

export function codePointLength(s: string): number {
  if (!hasSurrogates(s)) return s.length;
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Length of the string in UTF-8 bytes (Go's `len(string)`). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}


/** Throws cel-go's overflow error when an int result leaves int64. */
export function checkInt(n: bigint): bigint {
  if (n < INT64_MIN || n > INT64_MAX) throw new CelEvalError("integer overflow");
  return n;
}

export function checkUint(n: bigint): CelUint {
  if (n < 0n || n > UINT64_MAX) throw new CelEvalError("unsigned integer overflow");
  return new CelUint(n);
}

/** Duration arithmetic fails when the nanoseconds leave int64, as cel-go's checked addition. */
export function checkDuration(n: bigint): CelDuration {
  if (n < INT64_MIN || n > INT64_MAX) throw new CelEvalError("duration overflow");
  return new CelDuration(n);
}


function cmp<T extends bigint | number | string>(a: T, b: T): -1 | 0 | 1 {
  return a < b ? -1 : a > b ? 1 : 0;
}

function negate(c: -1 | 0 | 1): -1 | 0 | 1 {
  return (c === 0 ? 0 : -c) as -1 | 0 | 1;
}

function compareDoubleInt(d: number, i: bigint): -1 | 0 | 1 {
  if (d < -9223372036854775808) return -1;
  if (d > 9223372036854775807) return 1;
  return cmp(d, Number(i));
}

function compareDoubleUint(d: number, u: bigint): -1 | 0 | 1 {
  if (d < 0) return -1;
  if (d > 18446744073709551615) return 1;
  return cmp(d, Number(u));
}

export function compareBytes(a: Uint8Array, b: Uint8Array): -1 | 0 | 1 {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}
