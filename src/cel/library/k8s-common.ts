// Shared pieces of kapi's Kubernetes CEL libraries (quantity, URL, IP, CIDR, semver, format):
// CEL size of a string, cel-go's cost arithmetic, error raising, and an overload lookup.
import type { ArgEstimate, CallEstimate, CelLibrary, Estimate, OverloadCost, OverloadDecl } from "../library.js";
import { CelEvalError, type CelValue } from "../value.js";
import { stringTraversalCostFactor } from "../cost/constants.js";

/** Largest cost/size an Estimate holds (unbounded). */
export const MAX_ESTIMATE = Number.MAX_SAFE_INTEGER;

/** A CEL evaluation error with upstream's message. */
export function celError(message: string): never {
  throw new CelEvalError(message);
}

/** cel-go's size of a string: its number of code points (utf8.RuneCountInString). */
export function stringSize(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // a surrogate pair is one code point
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** A value's size for cel-go's runtime cost (traits.Sizer), 1 for values without one. */
export function actualSize(v: CelValue): number {
  if (typeof v === "string") return stringSize(v);
  if (v instanceof Uint8Array) return v.length;
  if (Array.isArray(v)) return v.length;
  if (v !== null && typeof v === "object" && "celSize" in v && typeof (v as { celSize: unknown }).celSize === "function") {
    return (v as { celSize(): number }).celSize();
  }
  return 1;
}

/** cel-go's CostEstimate.MultiplyByCostFactor: each bound times the factor, rounded up; unbounded stays unbounded. */
export function multiplyByCostFactor(e: Estimate, factor: number): Estimate {
  const f = (x: number): number => (x >= MAX_ESTIMATE ? MAX_ESTIMATE : Math.min(MAX_ESTIMATE, Math.ceil(x * factor)));
  return { min: f(e.min), max: f(e.max) };
}

/** cel-go's CostEstimate.Add, saturating. */
export function addEstimates(a: Estimate, b: Estimate): Estimate {
  return { min: Math.min(MAX_ESTIMATE, a.min + b.min), max: Math.min(MAX_ESTIMATE, a.max + b.max) };
}

const ONE: CallEstimate = Object.freeze({ cost: Object.freeze({ min: 1, max: 1 }) });

/** Estimate and runtime cost 1 (upstream's "nominal cost"). */
export const nominalCost: OverloadCost = Object.freeze({
  estimate: (): CallEstimate => ONE,
  actual: (): number => 1,
});

/**
 * Upstream's cost of parsing the string argument at `index`: at runtime ceil(size * 0.1). At
 * compile time upstream's estimator only recognises these functions when called as members
 * (`target != nil`), so the global forms (`quantity(s)`, `cidr(s)`, `ip(s)`, `isIP(s)`, …) are
 * estimated at cel-go's default of 1; `estimateTraversal` turns the string-size estimate on for
 * the functions where upstream's estimator does apply it (`url`).
 */
export function stringParseCost(index: number, estimateTraversal = false): OverloadCost {
  return {
    estimate: estimateTraversal
      ? (args: readonly ArgEstimate[]): CallEstimate => {
          const size = args[index]?.size ?? { min: 0, max: MAX_ESTIMATE };
          return { cost: multiplyByCostFactor(size, stringTraversalCostFactor), resultSize: size };
        }
      : (): CallEstimate => ONE,
    actual: (args: readonly CelValue[]): number => Math.ceil(actualSize(args[index]!) * stringTraversalCostFactor),
  };
}

