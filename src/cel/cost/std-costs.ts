// Costs of the standard library's overloads that differ from the default of 1, keyed by
// cel-go's overload id; the estimator and the runtime tracker read a declaration's own `cost`
// first and this table second.
//
// The figures are cel-go v0.26.0's (the version Kubernetes 1.34 builds with): the estimate of
// checker/cost.go and the runtime cost of interpreter/runtimecost.go. Two v0.26 quirks are kept
// on purpose: `startsWith`/`endsWith` are estimated from the prefix's size but charged at
// runtime from the receiver's size, and the global `matches(s, re)` (overload `matches`) costs 1
// while the member `s.matches(re)` (`matches_string`) is charged pattern × input.
//
// Every entry's `estimate` works on the number domain (Number.MAX_SAFE_INTEGER = unbounded);
// the estimator itself calls the exact uint64 form kept under `exactEstimate`.
import type { ArgEstimate, CallEstimate, OverloadCost } from "../library.js";
import type { CelType } from "../types.js";
import type { CelValue } from "../value.js";
import { regexStringLengthCostFactor as REGEX, stringTraversalCostFactor as TRAVERSAL } from "./constants.js";
import {
  MAX_U64,
  U64_ONE,
  type U64Range,
  actualSize,
  estimateToRange,
  rAdd,
  rFactor,
  rMul,
  rangeToEstimate,
  traversalCost,
} from "./arith.js";

/** An argument as the exact estimator sees it (receiver first for member calls). */
export interface ExactArg {
  readonly type: CelType;
  readonly size: U64Range;
  readonly constant?: CelValue;
}

export interface ExactCall {
  readonly cost: U64Range;
  readonly resultSize?: U64Range;
}

/** Where an OverloadCost built here keeps its exact (bigint, uint64-saturating) estimate. */
export const exactEstimate: unique symbol = Symbol("cel.cost.exactEstimate");

export interface ExactOverloadCost extends OverloadCost {
  readonly [exactEstimate]: (args: readonly ExactArg[]) => ExactCall | undefined;
}

/** Builds an OverloadCost whose number-domain `estimate` is derived from an exact one. */
export function exactCost(
  exact: (args: readonly ExactArg[]) => ExactCall | undefined,
  actual: (args: readonly CelValue[], result: CelValue) => number,
): ExactOverloadCost {
  return {
    [exactEstimate]: exact,
    estimate(args: readonly ArgEstimate[]): CallEstimate {
      const r = exact(args.map((a) => ({ type: a.type, size: estimateToRange(a.size), constant: a.constant })));
      if (!r) return { cost: { min: 1, max: 1 } };
      return r.resultSize
        ? { cost: rangeToEstimate(r.cost), resultSize: rangeToEstimate(r.resultSize) }
        : { cost: rangeToEstimate(r.cost) };
    },
    actual,
  };
}

export function isExactCost(c: OverloadCost | undefined): c is ExactOverloadCost {
  return c !== undefined && typeof (c as Partial<ExactOverloadCost>)[exactEstimate] === "function";
}

// ---------------------------------------------------------------- the entries

/** O(n) in the first runtime argument (the receiver of member calls). */
const traverseFirst = (args: readonly CelValue[]): number => traversalCost(actualSize(args[0]!), TRAVERSAL);

/** startsWith / endsWith: estimated from the prefix or suffix, charged from the receiver (v0.26). */
const prefixCost = exactCost(
  (args) => (args.length === 2 ? { cost: rFactor(args[1]!.size, TRAVERSAL) } : undefined),
  traverseFirst,
);

/** bytes(string): result up to 4 bytes per character. */
const stringToBytes = exactCost((args) => {
  if (args.length !== 1) return undefined;
  const sz = args[0]!.size;
  // cel-go multiplies the max by 4 without saturation (uint64 wrap-around); kept for exactness.
  return { cost: rFactor(sz, TRAVERSAL), resultSize: { min: sz.min, max: (sz.max * 4n) & MAX_U64 } };
}, traverseFirst);

/** string(bytes): result at least a quarter as many characters as bytes. */
const bytesToString = exactCost((args) => {
  if (args.length !== 1) return undefined;
  const sz = args[0]!.size;
  return { cost: rFactor(sz, TRAVERSAL), resultSize: { min: sz.min / 4n, max: sz.max } };
}, traverseFirst);

/** strings.quote(s): every character may be escaped, plus two quotes. */
const quoteString = exactCost((args) => {
  if (args.length !== 1) return undefined;
  const sz = args[0]!.size;
  return {
    cost: rFactor(sz, TRAVERSAL),
    resultSize: { min: (sz.min + 2n) & MAX_U64, max: (sz.max * 2n + 2n) & MAX_U64 },
  };
}, traverseFirst);

/** "fmt".format(args): a traversal of the format string; the result size is not bounded. */
const formatString = exactCost((args) => (args.length >= 1 ? { cost: rFactor(args[0]!.size, TRAVERSAL) } : undefined), traverseFirst);

/** x in list: linear in the list. */
const inList = exactCost(
  (args) => (args.length === 2 ? { cost: rFactor(args[1]!.size, 1) } : undefined),
  (args) => actualSize(args[1]!),
);

/** s.matches(re): (input length + 1) × 0.1, times pattern length × 0.25. */
const matchesString = exactCost(
  (args) => {
    if (args.length !== 2) return undefined;
    const str = rFactor(rAdd(args[0]!.size, U64_ONE), TRAVERSAL);
    const re = rFactor(args[1]!.size, REGEX);
    return { cost: rMul(str, re) };
  },
  (args) =>
    Math.ceil((1 + actualSize(args[0]!)) * TRAVERSAL) * Math.ceil(actualSize(args[1]!) * REGEX),
);

/** s.contains(sub): product of both traversals. */
const containsString = exactCost(
  (args) => {
    if (args.length !== 2) return undefined;
    return { cost: rMul(rFactor(args[0]!.size, TRAVERSAL), rFactor(args[1]!.size, TRAVERSAL)) };
  },
  (args) => traversalCost(actualSize(args[0]!), TRAVERSAL) * traversalCost(actualSize(args[1]!), TRAVERSAL),
);

/** String and bytes concatenation: copies both operands. */
const concatenate = exactCost(
  (args) => {
    if (args.length !== 2) return undefined;
    const size = rAdd(args[0]!.size, args[1]!.size);
    return { cost: rFactor(size, TRAVERSAL), resultSize: size };
  },
  (args) => traversalCost(actualSize(args[0]!) + actualSize(args[1]!), TRAVERSAL),
);

/** List concatenation: O(1), but the result's size is the sum. */
const concatenateLists = exactCost(
  (args) => (args.length === 2 ? { cost: U64_ONE, resultSize: rAdd(args[0]!.size, args[1]!.size) } : undefined),
  () => 1,
);

/** Ordering of strings/bytes and (in)equality of anything: a traversal of the shorter operand. */
const traverseShorter = exactCost(
  (args) => {
    if (args.length !== 2) return undefined;
    const l = args[0]!.size;
    const r = args[1]!.size;
    const smallestMax = r.max < l.max ? r.max : l.max;
    return { cost: rFactor({ min: smallestMax > 0n ? 1n : 0n, max: smallestMax }, TRAVERSAL) };
  },
  (args) => traversalCost(Math.min(actualSize(args[0]!), actualSize(args[1]!)), TRAVERSAL),
);

const entries: [string, OverloadCost][] = [
  ["starts_with_string", prefixCost],
  ["ends_with_string", prefixCost],
  ["string_to_bytes", stringToBytes],
  ["bytes_to_string", bytesToString],
  ["strings_quote", quoteString],
  ["string_format", formatString],
  ["in_list", inList],
  ["matches_string", matchesString],
  ["contains_string", containsString],
  ["add_string", concatenate],
  ["add_bytes", concatenate],
  ["add_list", concatenateLists],
  ...[
    "less_string",
    "greater_string",
    "less_equals_string",
    "greater_equals_string",
    "less_bytes",
    "greater_bytes",
    "less_equals_bytes",
    "greater_equals_bytes",
    "equals",
    "not_equals",
  ].map((id): [string, OverloadCost] => [id, traverseShorter]),
];

export const stdCallCosts: ReadonlyMap<string, OverloadCost> = new Map(entries);

/** Runtime cost of one call as the tracker charges it: the declaration's, the table's, or 1. */
export function actualCallCost(
  id: string,
  declCost: OverloadCost | undefined,
  args: readonly CelValue[],
  result: CelValue,
): number {
  const actual = declCost?.actual ?? stdCallCosts.get(id)?.actual;
  return actual ? actual(args, result) : 1;
}
