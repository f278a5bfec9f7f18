// The Kubernetes list library (k8s.io/apiserver/pkg/cel/library/lists.go, `kubernetes.lists`):
// <list>.isSorted(), .sum(), .min(), .max(), .indexOf(x), .lastIndexOf(x), with upstream's
// overload ids (one per element type), semantics, error texts and costs (library/cost.go: one
// traversal of the list).
//
// As upstream, comparisons that cel-go cannot make (mixed kinds in a dyn list) do not fail
// isSorted/min/max: only an element that cannot be ordered at all (a list, a map, null) is
// "no such overload".
import type { ArgEstimate, CallEstimate, CelLibrary, FunctionDecl, OverloadDecl } from "../library.js";
import { memberOverload } from "../library.js";
import { stringTraversalCostFactor } from "../cost/constants.js";
import {
  BoolType,
  BytesType,
  DoubleType,
  DurationType,
  IntType,
  StringType,
  TimestampType,
  UintType,
  listOf,
  typeParam,
  type CelType,
} from "../types.js";
import { CelDuration, CelEvalError, CelMap, CelUint, type CelValue } from "../value.js";
import {
  celCompare,
  celEquals,
  checkDuration,
  checkInt,
  checkUint,
  isComparable,
  noSuchOverload,
  utf8Length,
} from "./compare.js";
import { add, fixed, multiply, scale, typeSize } from "./compare-cost.js";

const comparableTypes: readonly (readonly [string, CelType])[] = [
  ["int", IntType],
  ["uint", UintType],
  ["double", DoubleType],
  ["bool", BoolType],
  ["duration", DurationType],
  ["timestamp", TimestampType],
  ["string", StringType],
  ["bytes", BytesType],
];

const summableTypes: readonly (readonly [string, CelType, CelValue])[] = [
  ["int", IntType, 0n],
  ["uint", UintType, new CelUint(0n)],
  ["double", DoubleType, 0],
  ["duration", DurationType, new CelDuration(0n)],
];

function asList(v: CelValue): readonly CelValue[] {
  if (!Array.isArray(v)) throw noSuchOverload();
  return v;
}

function isSorted(args: readonly CelValue[]): CelValue {
  const list = asList(args[0]!);
  let prev: CelValue | undefined;
  for (const next of list) {
    if (!isComparable(next)) throw noSuchOverload();
    if (prev !== undefined && celCompare(prev, next) === 1) return false;
    prev = next;
  }
  return true;
}

/** CEL `+` for the summable kinds, with cel-go's overflow errors. */
function addValues(a: CelValue, b: CelValue): CelValue {
  if (typeof a === "bigint" && typeof b === "bigint") return checkInt(a + b);
  if (typeof a === "number" && typeof b === "number") return a + b;
  if (a instanceof CelUint && b instanceof CelUint) return checkUint(a.value + b.value);
  if (a instanceof CelDuration && b instanceof CelDuration) return checkDuration(a.nanos + b.nanos);
  throw noSuchOverload();
}

function sum(zero: CelValue) {
  return (args: readonly CelValue[]): CelValue => {
    let acc = zero;
    for (const next of asList(args[0]!)) acc = addValues(acc, next);
    return acc;
  };
}

function extreme(name: "min" | "max", prefer: 1 | -1) {
  return (args: readonly CelValue[]): CelValue => {
    let result: CelValue | undefined;
    for (const next of asList(args[0]!)) {
      if (!isComparable(next)) throw noSuchOverload();
      if (result === undefined) result = next;
      else if (celCompare(result, next) === prefer) result = next;
    }
    if (result === undefined) throw new CelEvalError(`${name} called on empty list`);
    return result;
  };
}

function indexOf(args: readonly CelValue[]): CelValue {
  const list = asList(args[0]!);
  for (let i = 0; i < list.length; i++) if (celEquals(list[i]!, args[1]!)) return BigInt(i);
  return -1n;
}

function lastIndexOf(args: readonly CelValue[]): CelValue {
  const list = asList(args[0]!);
  for (let i = list.length - 1; i >= 0; i--) if (celEquals(list[i]!, args[1]!)) return BigInt(i);
  return -1n;
}

/**
 * cel-go/Kubernetes traversalCost: the cost of walking a value as a tree. A string or bytes
 * costs 0.1 per byte (rounded down), a list or map the sum over its items (keys included),
 * anything else 1.
 */
export function traversalCost(v: CelValue): number {
  if (typeof v === "string") return Math.floor(utf8Length(v) * stringTraversalCostFactor);
  if (v instanceof Uint8Array) return Math.floor(v.length * stringTraversalCostFactor);
  if (Array.isArray(v)) {
    let c = 0;
    for (const x of v) c += traversalCost(x);
    return c;
  }
  if (v instanceof CelMap) {
    let c = 0;
    for (const [k, x] of v.entries()) c += traversalCost(k) + traversalCost(x);
    return c;
  }
  return 1;
}

/**
 * Kubernetes' estimate for isSorted/sum/min/max/indexOf/lastIndexOf: one unit per element, plus a
 * traversal of each element when they are strings or bytes; a receiver that is not a list (a
 * string's indexOf, or dyn) is charged as one traversal of a string.
 */
export function traversalEstimate(args: readonly ArgEstimate[]): CallEstimate {
  const target = args[0]!;
  if (target.type.kind === "list") {
    const elem = target.type.elem;
    let elCost = fixed(1);
    if (elem.kind === "string" || elem.kind === "bytes") {
      elCost = add(elCost, scale(typeSize(elem), stringTraversalCostFactor));
    }
    return { cost: multiply(target.size, elCost) };
  }
  return { cost: scale(target.size, stringTraversalCostFactor) };
}

const traversal = {
  estimate: traversalEstimate,
  actual: (args: readonly CelValue[]) => traversalCost(args[0]!),
};

const A = typeParam("A");

function fn(name: string, overloads: OverloadDecl[]): FunctionDecl {
  return { name, overloads };
}

/** Kubernetes' list library: isSorted, sum, min, max, indexOf, lastIndexOf. */
export const listsLibrary: CelLibrary = {
  name: "kubernetes.lists",
  functions: [
    fn(
      "isSorted",
      comparableTypes.map(([n, t]) =>
        memberOverload(`list_${n}_is_sorted_bool`, [listOf(t)], BoolType, isSorted, { cost: traversal }),
      ),
    ),
    fn(
      "sum",
      summableTypes.map(([n, t, zero]) => memberOverload(`list_${n}_sum_${n}`, [listOf(t)], t, sum(zero), { cost: traversal })),
    ),
    fn(
      "max",
      comparableTypes.map(([n, t]) => memberOverload(`list_${n}_max_${n}`, [listOf(t)], t, extreme("max", -1), { cost: traversal })),
    ),
    fn(
      "min",
      comparableTypes.map(([n, t]) => memberOverload(`list_${n}_min_${n}`, [listOf(t)], t, extreme("min", 1), { cost: traversal })),
    ),
    fn("indexOf", [
      memberOverload("list_a_index_of_int", [listOf(A), A], IntType, indexOf, { typeParams: ["A"], cost: traversal }),
    ]),
    fn("lastIndexOf", [
      memberOverload("list_a_last_index_of_int", [listOf(A), A], IntType, lastIndexOf, { typeParams: ["A"], cost: traversal }),
    ]),
  ],
};
