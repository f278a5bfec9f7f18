// Saturating arithmetic of the cost model, in two domains:
//  - exact: bigint with cel-go's uint64 semantics (sums and products saturate at 2^64-1, a
//    cost factor multiplies through float64 and rounds up), used inside the estimator so that
//    its figures match cel-go's to the unit;
//  - number: what libraries see (ArgEstimate, CallEstimate, Estimate), where
//    Number.MAX_SAFE_INTEGER stands for "that much or more" (unknown, saturated).
import type { Estimate } from "../library.js";
import { CelMap, CelOptional, type CelValue } from "../value.js";

// ---------------------------------------------------------------- exact (uint64) domain

export const MAX_U64 = (1n << 64n) - 1n;
const TWO_TO_64 = 2 ** 64;

/** An exact [min, max] range with uint64 saturation. */
export interface U64Range {
  readonly min: bigint;
  readonly max: bigint;
}

export const u64Fixed = (n: bigint): U64Range => ({ min: n, max: n });
export const U64_ZERO: U64Range = u64Fixed(0n);
export const U64_ONE: U64Range = u64Fixed(1n);
export const U64_UNKNOWN: U64Range = { min: 0n, max: MAX_U64 };

export function u64Add(a: bigint, b: bigint): bigint {
  const s = a + b;
  return s > MAX_U64 ? MAX_U64 : s;
}

export function u64Mul(a: bigint, b: bigint): bigint {
  const p = a * b;
  return p > MAX_U64 ? MAX_U64 : p;
}

/** x × factor through float64, rounded up, saturating (cel-go multiplyByCostFactor). */
export function u64Factor(x: bigint, factor: number): bigint {
  const xf = Number(x);
  if (xf > 0 && factor > 0 && xf > TWO_TO_64 / factor) return MAX_U64;
  const c = Math.ceil(xf * factor);
  if (c >= TWO_TO_64) return MAX_U64;
  return BigInt(c);
}

export const rAdd = (a: U64Range, b: U64Range): U64Range => ({ min: u64Add(a.min, b.min), max: u64Add(a.max, b.max) });
export const rMul = (a: U64Range, b: U64Range): U64Range => ({ min: u64Mul(a.min, b.min), max: u64Mul(a.max, b.max) });
export const rFactor = (a: U64Range, f: number): U64Range => ({ min: u64Factor(a.min, f), max: u64Factor(a.max, f) });
export const rUnion = (a: U64Range, b: U64Range): U64Range => ({
  min: b.min < a.min ? b.min : a.min,
  max: b.max > a.max ? b.max : a.max,
});

/** Exact → number domain: anything from 2^53-1 up reads as Number.MAX_SAFE_INTEGER. */
export function u64ToNumber(x: bigint): number {
  return x >= BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(x);
}

/** Number → exact domain: Number.MAX_SAFE_INTEGER (or more) is the saturated 2^64-1. */
export function numberToU64(n: number): bigint {
  if (!(n >= 0)) return 0n;
  if (n >= Number.MAX_SAFE_INTEGER) return MAX_U64;
  return BigInt(Math.ceil(n));
}

export const rangeToEstimate = (r: U64Range): Estimate => ({ min: u64ToNumber(r.min), max: u64ToNumber(r.max) });
export const estimateToRange = (e: Estimate): U64Range => ({ min: numberToU64(e.min), max: numberToU64(e.max) });

// ---------------------------------------------------------------- number domain (for libraries)

const MAX = Number.MAX_SAFE_INTEGER;

/** cel-go's UnknownSizeEstimate / UnknownCostEstimate. */
export const unknownEstimate: Estimate = Object.freeze({ min: 0, max: MAX });
export const fixedEstimate = (n: number): Estimate => ({ min: n, max: n });

export function satAdd(a: number, b: number): number {
  return a >= MAX || b >= MAX ? MAX : Math.min(a + b, MAX);
}

export function satMul(a: number, b: number): number {
  if (a === 0 || b === 0) return 0;
  if (a >= MAX || b >= MAX) return MAX;
  return Math.min(a * b, MAX);
}

/** ceil(x × factor), the saturated value staying saturated. */
export function satFactor(x: number, factor: number): number {
  if (x === 0 || factor === 0) return 0;
  if (x >= MAX) return MAX;
  return Math.min(Math.ceil(x * factor), MAX);
}

export const estAdd = (a: Estimate, b: Estimate): Estimate => ({ min: satAdd(a.min, b.min), max: satAdd(a.max, b.max) });
export const estMul = (a: Estimate, b: Estimate): Estimate => ({ min: satMul(a.min, b.min), max: satMul(a.max, b.max) });
export const estFactor = (a: Estimate, f: number): Estimate => ({ min: satFactor(a.min, f), max: satFactor(a.max, f) });
export const estUnion = (a: Estimate, b: Estimate): Estimate => ({ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) });

// ---------------------------------------------------------------- runtime sizes

/** Number of Unicode code points (CEL's string size). */
export function stringSize(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/**
 * cel-go's runtime `actualSize`: the size of strings (code points), bytes, lists and maps; an
 * optional with a value has its value's size; everything else is 1.
 */
export function actualSize(v: CelValue): number {
  if (typeof v === "string") return stringSize(v);
  if (v instanceof Uint8Array) return v.length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof CelMap) return v.size;
  if (v instanceof CelOptional) return v.hasValue ? actualSize(v.value) : 1;
  return 1;
}

/** ceil(size × factor) as the runtime tracker computes it. */
export const traversalCost = (size: number, factor: number): number => Math.ceil(size * factor);
