// cel-go's extended list library (ext.Lists, `cel.lib.ext.lists`) at version 3, which Kubernetes
// enables from 1.34: <list>.slice(start, end), .flatten(), .flatten(depth), .sort(),
// .@sortByAssociatedKeys(keys) (what the `sortBy` macro expands to), lists.range(n), .reverse(),
// .distinct() — with cel-go's overload ids, error texts, and the version-3 cost estimators and
// trackers.
//
// The `sortBy(e, keyExpr)` macro itself belongs to the parser: cel-go expands
// `target.sortBy(e, k)` to a comprehension binding `@__sortBy_input__` to the target (accuInit
// target, loop over `[]`, result `@__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, k))`),
// and refuses targets other than a list, identifier, comprehension, call or select with
// "sortBy can only be applied to a list, identifier, comprehension, call or select expression".
import type { ArgEstimate, CallEstimate, CelLibrary, OverloadCost } from "../library.js";
import { memberOverload, overload } from "../library.js";
import { stringTraversalCostFactor } from "../cost/constants.js";
import {
  BoolType,
  BytesType,
  DoubleType,
  DurationType,
  DynType,
  IntType,
  StringType,
  TimestampType,
  UintType,
  listOf,
  typeParam,
  type CelType,
} from "../types.js";
import { CelEvalError, type CelValue } from "../value.js";
import { actualSize, celCompare, celEquals, celTypeName, isComparable } from "./compare.js";
import { UNBOUNDED, add, celGoListCreateBaseCost, constantInt, fixed, multiply, scale, unknownSize } from "./compare-cost.js";

const comparableTypes: readonly (readonly [string, CelType])[] = [
  ["int", IntType],
  ["uint", UintType],
  ["double", DoubleType],
  ["bool", BoolType],
  ["google.protobuf.Duration", DurationType],
  ["google.protobuf.Timestamp", TimestampType],
  ["string", StringType],
  ["bytes", BytesType],
];

// ---------------------------------------------------------------------------------------------
// Implementations

export function slice(list: readonly CelValue[], start: bigint, end: bigint): CelValue[] {
  if (start < 0n || end < 0n) throw new CelEvalError(`cannot slice(${start}, ${end}), negative indexes not supported`);
  if (start > end) throw new CelEvalError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  if (BigInt(list.length) < end) throw new CelEvalError(`cannot slice(${start}, ${end}), list is length ${list.length}`);
  return list.slice(Number(start), Number(end));
}

export function flatten(list: readonly CelValue[], depth: bigint): CelValue[] {
  if (depth < 0n) throw new CelEvalError("level must be non-negative");
  const out: CelValue[] = [];
  const walk = (l: readonly CelValue[], d: bigint): void => {
    for (const v of l) {
      if (Array.isArray(v) && d > 0n) walk(v, d - 1n);
      else out.push(v);
    }
  };
  walk(list, depth);
  return out;
}

/**
 * Sorts `list` by the order of `keys` (cel-go sortListByAssociatedKeys). Keys must all be of the
 * first key's kind, and that kind must be orderable. Ties keep their order (cel-go's sort is not
 * stable beyond 12 elements; its insertion sort below that is).
 */
export function sortByKeys(list: readonly CelValue[], keys: readonly CelValue[]): readonly CelValue[] {
  if (list.length !== keys.length) {
    throw new CelEvalError(
      `@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${list.length} and ${keys.length} elements respectively`,
    );
  }
  if (list.length === 0) return list;
  const first = keys[0]!;
  if (!isComparable(first)) throw new CelEvalError("list elements must be comparable");
  if (keys.length > 1) {
    const kind = celTypeName(first);
    for (const k of keys) if (celTypeName(k) !== kind) throw new CelEvalError("list elements must have the same type");
  }
  const idx = keys.map((_, i) => i);
  idx.sort((i, j) => celCompare(keys[i]!, keys[j]!) ?? 0);
  return idx.map((i) => list[i]!);
}

export function distinct(list: readonly CelValue[]): readonly CelValue[] {
  if (list.length === 0) return list;
  const out: CelValue[] = [];
  outer: for (const v of list) {
    for (const u of out) if (celEquals(v, u)) continue outer;
    out.push(v);
  }
  return out;
}

function range(n: bigint): CelValue[] {
  const out: CelValue[] = [];
  for (let i = 0n; i < n; i++) out.push(i);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Costs (cel-go ext/lists.go, version 3)

const callCost = 1;

/** Cost of a call that builds a list: size × factor, plus the call and the list allocation. */
function allocatingListEstimate(factor: number, size: { min: number; max: number }): CallEstimate {
  return { cost: add(add(scale(size, factor), fixed(callCost)), fixed(celGoListCreateBaseCost)), resultSize: size };
}

function allocatingListActual(factor: number, size: number): number {
  return Math.floor(size * factor) + callCost + celGoListCreateBaseCost;
}

const outputSizeTracker = (_args: readonly CelValue[], result: CelValue): number => allocatingListActual(1, actualSize(result));

function selfCompareActual(list: CelValue): number {
  const sz = actualSize(list);
  if (sz === 0) return allocatingListActual(2, 0);
  const first = (list as readonly CelValue[])[0]!;
  const factor = typeof first === "string" || first instanceof Uint8Array ? 2 + stringTraversalCostFactor : 2;
  return allocatingListActual(factor, sz * sz);
}

function sortEstimate(elemKind: string, size: { min: number; max: number }): CallEstimate {
  const factor = elemKind === "string" || elemKind === "bytes" ? 2 + stringTraversalCostFactor : 2;
  return allocatingListEstimate(factor, multiply(size, size));
}

const sliceCost: OverloadCost = {
  estimate(args: readonly ArgEstimate[]) {
    const sz = args[0]!.size;
    const start = constantInt(args[1], 0);
    const end = constantInt(args[2], sz.max);
    // cel-go subtracts unsigned numbers here; a start past the end wraps around to "unbounded".
    return allocatingListEstimate(1, fixed(end >= start ? end - start : UNBOUNDED));
  },
  actual: outputSizeTracker,
};

const flattenCost: OverloadCost = {
  estimate(args: readonly ArgEstimate[]) {
    const depth = args.length > 1 ? constantInt(args[1], UNBOUNDED) : 1;
    return allocatingListEstimate(depth, args[0]!.size);
  },
  actual(args: readonly CelValue[]) {
    const depth = args.length > 1 ? Math.max(0, Number(args[1] as bigint)) : 1;
    return allocatingListActual(depth, actualSize(args[0]!));
  },
};

const T = typeParam("T");
const listT = listOf(T);

export const extListsLibrary: CelLibrary = {
  name: "cel.lib.ext.lists",
  functions: [
    {
      name: "slice",
      overloads: [
        memberOverload("list_slice", [listT, IntType, IntType], listT, (a) => slice(a[0] as CelValue[], a[1] as bigint, a[2] as bigint), {
          typeParams: ["T"],
          cost: sliceCost,
        }),
      ],
    },
    {
      // cel-go declares these without runtime type guards: a list(T) that is already flat passes.
      name: "flatten",
      overloads: [
        memberOverload("list_flatten", [listOf(listT)], listT, (a) => flatten(asList(a[0]!, "flatten()"), 1n), {
          typeParams: ["T"],
          cost: flattenCost,
          typeGuards: false,
        }),
        memberOverload("list_flatten_int", [listOf(DynType), IntType], listOf(DynType), (a) => flattenInt(a), { cost: flattenCost, typeGuards: false }),
      ],
    },
    {
      name: "sort",
      overloads: comparableTypes.map(([name, t]) =>
        memberOverload(`list_${name}_sort`, [listOf(t)], listOf(t), (a) => sortByKeys(a[0] as CelValue[], a[0] as CelValue[]), {
          cost: {
            estimate: (args) => sortEstimate(t.kind, args[0]!.size),
            actual: (args) => selfCompareActual(args[0]!),
          },
        }),
      ),
    },
    {
      name: "@sortByAssociatedKeys",
      overloads: comparableTypes.map(([name, u]) =>
        memberOverload(
          `list_${name}_sortByAssociatedKeys`,
          [listT, listOf(u)],
          listT,
          (a) => sortByKeys(a[0] as CelValue[], a[1] as CelValue[]),
          {
            typeParams: ["T"],
            cost: {
              estimate: (args) => sortEstimate(u.kind, args[1]?.size ?? unknownSize),
              actual: (args) => selfCompareActual(args[1]!),
            },
          },
        ),
      ),
    },
    {
      name: "lists.range",
      overloads: [
        overload("lists_range", [IntType], listOf(IntType), (a) => range(a[0] as bigint), {
          cost: {
            estimate: (args) => allocatingListEstimate(1, fixed(constantInt(args[0], UNBOUNDED))),
            actual: outputSizeTracker,
          },
        }),
      ],
    },
    {
      name: "reverse",
      overloads: [
        memberOverload("list_reverse", [listT], listT, (a) => [...(a[0] as CelValue[])].reverse(), {
          typeParams: ["T"],
          cost: { estimate: (args) => allocatingListEstimate(1, args[0]!.size), actual: outputSizeTracker },
        }),
      ],
    },
    {
      name: "distinct",
      overloads: [
        memberOverload("list_distinct", [listT], listT, (a) => distinct(a[0] as CelValue[]), {
          typeParams: ["T"],
          cost: {
            estimate: (args) => allocatingListEstimate(2, multiply(args[0]!.size, args[0]!.size)),
            actual: (args) => selfCompareActual(args[0]!),
          },
        }),
      ],
    },
  ],
};

function asList(v: CelValue, call: string): readonly CelValue[] {
  if (!Array.isArray(v)) throw new CelEvalError(`no such overload: ${celTypeName(v)}.${call}`);
  return v;
}

function flattenInt(a: readonly CelValue[]): CelValue {
  if (!Array.isArray(a[0]) || typeof a[1] !== "bigint") {
    throw new CelEvalError(`no such overload: ${celTypeName(a[0]!)}.flatten(${celTypeName(a[1]!)})`);
  }
  return flatten(a[0], a[1]);
}
