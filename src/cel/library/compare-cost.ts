// Cost and size arithmetic shared by the list, set, regex, string and authorizer libraries, as
// cel-go's CostEstimate/SizeEstimate do it: unsigned, rounding up when scaled by a factor, and
// saturating. kapi's Estimate saturates at Number.MAX_SAFE_INTEGER, which stands for "unbounded":
// an unbounded operand keeps the result unbounded.
import type { ArgEstimate, CallEstimate, Estimate } from "../library.js";
import type { CelType } from "../types.js";
import { stringTraversalCostFactor } from "../cost/constants.js";

export const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/**
 * cel-go's own list-creation base cost (common.ListCreateBaseCost). Library cost formulas that
 * charge for the list they allocate (ext lists, selector parsing) use it, so that their numbers
 * are upstream's; kapi's 40 applies to list literals in expressions only.
 */
export const celGoListCreateBaseCost = 10;
/** cel-go's common.StructCreateBaseCost. */
export const celGoStructCreateBaseCost = 40;

export const fixed = (n: number): Estimate => ({ min: n, max: n });
export const unknownSize: Estimate = { min: 0, max: UNBOUNDED };

function sat(n: number): number {
  return n >= UNBOUNDED || !Number.isFinite(n) ? UNBOUNDED : n;
}

export function add(a: Estimate, b: Estimate): Estimate {
  return { min: sat(a.min + b.min), max: sat(a.max + b.max) };
}

export function multiply(a: Estimate, b: Estimate): Estimate {
  return { min: mul(a.min, b.min), max: mul(a.max, b.max) };
}

function mul(x: number, y: number): number {
  if (x === 0 || y === 0) return 0;
  if (x >= UNBOUNDED || y >= UNBOUNDED) return UNBOUNDED;
  return sat(x * y);
}

/** cel-go MultiplyByCostFactor: each bound times the factor, rounded up. */
export function scale(e: Estimate, factor: number): Estimate {
  return { min: scaleOne(e.min, factor), max: scaleOne(e.max, factor) };
}

function scaleOne(x: number, factor: number): number {
  if (x >= UNBOUNDED) return factor === 0 ? 0 : UNBOUNDED;
  return sat(Math.ceil(x * factor));
}

/** Size bounds of a value of this type (maxLength/maxItems/…); unknown bounds are [0, unbounded]. */
export function typeSize(t: CelType): Estimate {
  const b = t as { minSize?: number; maxSize?: number };
  return { min: b.minSize ?? 0, max: b.maxSize ?? UNBOUNDED };
}

/** The element type of a list type, if the argument is one. */
export function listElem(t: CelType): CelType | undefined {
  return t.kind === "list" ? t.elem : undefined;
}

/** The argument's constant int value, as cel-go's nodeAsIntValue: negative → 0, absent → fallback. */
export function constantInt(arg: ArgEstimate | undefined, fallback: number): number {
  const c = arg?.constant;
  if (typeof c !== "bigint") return fallback;
  if (c < 0n) return 0;
  return c >= BigInt(UNBOUNDED) ? UNBOUNDED : Number(c);
}

/** Estimate for a call whose cost is one walk over a string: size × 0.1, rounded up. */
export function traversalEstimate(size: Estimate, resultSize?: Estimate): CallEstimate {
  return resultSize
    ? { cost: scale(size, stringTraversalCostFactor), resultSize }
    : { cost: scale(size, stringTraversalCostFactor) };
}
