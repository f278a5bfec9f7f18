import { describe, expect, it } from "vitest";
import type { Expr } from "../ast.js";
import type { CelLibrary, Estimate } from "../library.js";
import {
  BoolType,
  BytesType,
  DoubleType,
  DynType,
  IntType,
  StringType,
  TimestampType,
  listOf,
  mapOf,
  typeOf,
  type CelType,
  type ObjectType,
} from "../types.js";
import { MAX_U64 } from "./arith.js";
import { staticEstimatedCostLimit } from "./constants.js";
import { estimateCost, estimateCostExact, type CostEstimateOptions, type SizeNode } from "./estimate.js";
import { exactCost } from "./std-costs.js";
import { AstBuilder } from "./cost-ast.testkit.js";

const allTypes: ObjectType = {
  kind: "object",
  name: "google.expr.proto3.test.TestAllTypes",
  fields: new Map([
    ["single_int32", { type: IntType, required: false }],
    ["single_string", { type: StringType, required: false }],
  ]),
};
const allList = listOf(allTypes);
const intList = listOf(IntType);
const allMap = mapOf(StringType, allTypes);
const nestedMap = mapOf(StringType, allMap);

/** cel-go checker/cost_test.go's testCostEstimator: sizes by path hint; bytes are at most 12. */
function hints(h: Record<string, number>): CostEstimateOptions["estimateSize"] {
  return (node: SizeNode) => {
    const key = node.path.join(".");
    if (key in h) return { min: 0, max: h[key]! };
    if (node.type?.kind === "bytes") return { min: 0, max: 12 };
    return undefined;
  };
}

/** The options under which cel-go's own tests run: list literal 10, has() costs 1. */
const celGo = (h: Record<string, number> = {}, extra: CostEstimateOptions = {}): CostEstimateOptions => ({
  listCreateBaseCost: 10,
  presenceTestHasCost: true,
  estimateSize: hints(h),
  ...extra,
});

const u = (min: number | bigint, max: number | bigint) => ({ min: BigInt(min), max: BigInt(max) });

type Case = { name: string; build: (b: AstBuilder) => Expr; opts?: CostEstimateOptions; want: { min: bigint; max: bigint } };

// Expressions and figures from cel-go v0.26.0 checker/cost_test.go (TestCost), built by hand
// as cel-go's parser and checker would leave them.
const celGoCases: Case[] = [
  { name: "const", build: (b) => b.lit("Hello World!", StringType), opts: celGo(), want: u(0, 0) },
  { name: "identity", build: (b) => b.ident("input", intList), opts: celGo(), want: u(1, 1) },
  {
    name: "select: map",
    build: (b) =>
      b.call("_[_]", ["index_map"], [b.ident("input", mapOf(StringType, StringType)), b.lit("key", StringType)], StringType),
    opts: celGo(),
    want: u(2, 2),
  },
  { name: "select: field", build: (b) => b.select(b.ident("input", allTypes), "single_int32", IntType), opts: celGo(), want: u(2, 2) },
  {
    name: "select: field test only no has() cost",
    build: (b) => b.has(b.ident("input", allTypes), "single_int32"),
    opts: celGo({}, { presenceTestHasCost: false }),
    want: u(1, 1),
  },
  { name: "select: field test only", build: (b) => b.has(b.ident("input", allTypes), "single_int32"), opts: celGo(), want: u(2, 2) },
  {
    name: "select: non-proto field test has() cost",
    build: (b) => b.has(b.select(b.ident("input", nestedMap), "testAttr", allMap), "nestedAttr"),
    opts: celGo(),
    want: u(3, 3),
  },
  {
    name: "select: non-proto field test no has() cost",
    build: (b) => b.has(b.select(b.ident("input", nestedMap), "testAttr", allMap), "nestedAttr"),
    opts: celGo({}, { presenceTestHasCost: false }),
    want: u(2, 2),
  },
  {
    name: "estimated function call",
    build: (b) => b.member(b.ident("input", TimestampType), "getFullYear", ["timestamp_to_year"], [], IntType),
    opts: celGo({}, { estimateCallCost: (_fn, id) => (id === "timestamp_to_year" ? { cost: { min: 7, max: 7 } } : undefined) }),
    want: u(8, 8),
  },
  { name: "create list", build: (b) => b.list([b.lit(1n), b.lit(2n), b.lit(3n)], intList), opts: celGo(), want: u(10, 10) },
  {
    name: "create map",
    build: (b) => b.map([[b.lit("a"), b.lit(1n)], [b.lit("b"), b.lit(2n)], [b.lit("c"), b.lit(3n)]], mapOf(StringType, IntType)),
    opts: celGo(),
    want: u(30, 30),
  },
  {
    name: "all comprehension",
    build: (b) => b.all(b.ident("input", allList), "x", allTypes, () => b.lit(true, BoolType)),
    opts: celGo({ input: 100 }),
    want: u(2, 302),
  },
  {
    name: "nested all comprehension",
    build: (b) =>
      b.all(b.ident("input", listOf(allList)), "x", allList, (x) => b.all(x, "y", allTypes, () => b.lit(true, BoolType))),
    opts: celGo({ input: 50, "input.@items": 10 }),
    want: u(2, 1752),
  },
  {
    name: "all comprehension on literal",
    build: (b) => b.all(b.list([b.lit(1n), b.lit(2n), b.lit(3n)], intList), "x", IntType, () => b.lit(true, BoolType)),
    opts: celGo(),
    want: u(20, 20),
  },
  {
    name: "variable cost function",
    build: (b) => b.member(b.ident("input", StringType), "matches", ["matches_string"], [b.lit("[0-9]", StringType)], BoolType),
    opts: celGo({ input: 500 }),
    want: u(3, 103),
  },
  {
    name: "variable cost function with constant",
    build: (b) => b.member(b.lit("123", StringType), "matches", ["matches_string"], [b.lit("[0-9]", StringType)], BoolType),
    opts: celGo(),
    want: u(2, 2),
  },
  {
    name: "or",
    build: (b) => b.call("_||_", ["logical_or"], [b.lit(true), b.lit(false)], BoolType),
    opts: celGo(),
    want: u(0, 0),
  },
  {
    name: "or accumulated branch cost",
    build: (b) => {
      const v = (n: string) => b.ident(n, BoolType);
      const or = (l: Expr, r: Expr) => b.call("_||_", ["logical_or"], [l, r], BoolType);
      return or(or(v("a"), v("b")), or(v("c"), v("d")));
    },
    opts: celGo(),
    want: u(1, 4),
  },
  { name: "lt", build: (b) => b.call("_<_", ["less_int64"], [b.lit(1n), b.lit(2n)], BoolType), opts: celGo(), want: u(1, 1) },
  { name: "eq", build: (b) => b.call("_==_", ["equals"], [b.lit(1n), b.lit(2n)], BoolType), opts: celGo(), want: u(1, 1) },
  {
    name: "in",
    build: (b) => b.call("@in", ["in_list"], [b.lit(2n), b.list([b.lit(1n), b.lit(2n), b.lit(3n)], intList)], BoolType),
    opts: celGo(),
    want: u(13, 13),
  },
  {
    name: "ternary",
    build: (b) => b.call("_?_:_", ["conditional"], [b.lit(true), b.lit(1n), b.lit(2n)], IntType),
    opts: celGo(),
    want: u(0, 0),
  },
  { name: "string size", build: (b) => b.call("size", ["size_string"], [b.lit("123")], IntType), opts: celGo(), want: u(1, 1) },
  {
    name: "bytes to string conversion",
    build: (b) => b.call("string", ["bytes_to_string"], [b.ident("input", BytesType)], StringType),
    opts: celGo({ input: 500 }),
    want: u(1, 51),
  },
  {
    name: "bytes to string conversion equality",
    build: (b) => {
      const conv = () => b.call("string", ["bytes_to_string"], [b.ident("input", BytesType)], StringType);
      return b.call("_==_", ["equals"], [conv(), conv()], BoolType);
    },
    opts: celGo({ input: 500 }),
    want: u(3, 152),
  },
  {
    name: "string to bytes conversion equality",
    build: (b) => {
      const conv = () => b.call("bytes", ["string_to_bytes"], [b.ident("input", StringType)], BytesType);
      return b.call("_==_", ["equals"], [conv(), conv()], BoolType);
    },
    opts: celGo({ input: 500 }),
    want: u(3, 302),
  },
  {
    name: "int to string conversion",
    build: (b) => b.call("string", ["int64_to_string"], [b.lit(1n)], StringType),
    opts: celGo(),
    want: u(1, 1),
  },
  {
    name: "contains",
    build: (b) => b.member(b.ident("input", StringType), "contains", ["contains_string"], [b.ident("arg1", StringType)], BoolType),
    opts: celGo({ input: 500, arg1: 500 }),
    want: u(2, 2502),
  },
  {
    name: "matches",
    build: (b) => b.member(b.ident("input", StringType), "matches", ["matches_string"], [b.lit("\\d+a\\d+b")], BoolType),
    opts: celGo({ input: 500 }),
    want: u(3, 103),
  },
  {
    name: "startsWith",
    build: (b) => b.member(b.ident("input", StringType), "startsWith", ["starts_with_string"], [b.ident("arg1", StringType)], BoolType),
    opts: celGo({ arg1: 500 }),
    want: u(2, 52),
  },
  {
    name: "size receiver",
    build: (b) => b.member(b.ident("input", StringType), "size", ["string_size"], [], IntType),
    opts: celGo(),
    want: u(2, 2),
  },
  {
    name: "ternary eval",
    build: (b) => {
      const cond = b.call("_>_", ["greater_int64"], [b.ident("x", IntType), b.lit(2n)], BoolType);
      const t = b.call("_?_:_", ["conditional"], [cond, b.ident("input1", allList), b.ident("input2", allList)], allList);
      return b.all(t, "y", allTypes, () => b.lit(true, BoolType));
    },
    opts: celGo({ input1: 1, input2: 1 }),
    want: u(4, 7),
  },
  {
    name: "comprehension over map",
    build: (b) =>
      b.all(b.ident("input", allMap), "k", StringType, (k) => {
        const v = b.call("_[_]", ["index_map"], [b.ident("input", allMap), k], allTypes);
        return b.call("_>_", ["greater_int64"], [b.select(v, "single_int32", IntType), b.lit(3n)], BoolType);
      }),
    opts: celGo({ input: 10 }),
    want: u(2, 82),
  },
  {
    name: "comprehension over nested map of maps",
    build: (b) =>
      b.all(b.ident("input", nestedMap), "k", StringType, (k) => {
        const v = b.call("_[_]", ["index_map"], [b.ident("input", nestedMap), k], allMap);
        return b.all(v, "x", StringType, () => b.lit(true, BoolType));
      }),
    opts: celGo({ input: 5, "input.@values": 10 }),
    want: u(2, 187),
  },
  {
    name: "string size of map keys",
    build: (b) =>
      b.all(b.ident("input", nestedMap), "k", StringType, () =>
        b.member(b.ident("k", StringType), "contains", ["contains_string"], [b.ident("k", StringType)], BoolType),
      ),
    opts: celGo({ input: 5, "input.@keys": 10 }),
    want: u(2, 32),
  },
  {
    name: "comprehension variable shadowing",
    build: (b) =>
      b.all(b.ident("input", nestedMap), "k", StringType, (k) => {
        const v = b.call("_[_]", ["index_map"], [k.kind === "ident" ? b.ident("input", nestedMap) : k, b.ident("k", StringType)], allMap);
        const inner = b.all(v, "k", StringType, () => b.lit(true, BoolType));
        const c = b.member(b.ident("k", StringType), "contains", ["contains_string"], [b.ident("k", StringType)], BoolType);
        return b.call("_&&_", ["logical_and"], [inner, c], BoolType);
      }),
    opts: celGo({ input: 2, "input.@values": 2, "input.@keys": 5 }),
    want: u(2, 34),
  },
  {
    name: "list concat",
    build: (b) => {
      const cat = b.call("_+_", ["add_list"], [b.ident("list1", intList), b.ident("list2", intList)], intList);
      return b.all(cat, "x", IntType, () => b.lit(true, BoolType));
    },
    opts: celGo({ list1: 10, list2: 10 }),
    want: u(4, 64),
  },
  {
    name: "str concat",
    build: (b) => {
      const cat = b.call("_+_", ["add_string"], [b.ident("str1", StringType), b.ident("str2", StringType)], StringType);
      return b.member(b.lit("abcdefg"), "contains", ["contains_string"], [cat], BoolType);
    },
    opts: celGo({ str1: 10, str2: 10 }),
    want: u(2, 6),
  },
  {
    name: "list size comparison",
    build: (b) => {
      const sz = (n: string) => b.member(b.ident(n, intList), "size", ["list_size"], [], IntType);
      return b.call("_==_", ["equals"], [sz("list1"), sz("list2")], BoolType);
    },
    opts: celGo(),
    want: u(5, 5),
  },
  {
    name: "list size from concat",
    build: (b) => {
      const xy = b.list([b.ident("x", IntType), b.ident("y", IntType)], intList);
      const c1 = b.call("_+_", ["add_list"], [xy, b.ident("list1", intList)], intList);
      const c2 = b.call("_+_", ["add_list"], [c1, b.ident("list2", intList)], intList);
      return b.member(c2, "size", ["list_size"], [], IntType);
    },
    opts: celGo({ list1: 10, list2: 20 }),
    want: u(17, 17),
  },
  {
    name: "list cost tracking through comprehension",
    build: (b) => {
      const sl = listOf(StringType);
      const outer = b.list([b.ident("list1", sl), b.ident("list2", sl)], listOf(sl));
      return b.exists(outer, "l", sl, (l) =>
        b.exists(l, "v", StringType, (v) => b.member(v, "startsWith", ["starts_with_string"], [b.lit("hi")], BoolType)),
      );
    },
    opts: celGo({ list1: 10, "list1.@items": 64, list2: 20, "list2.@items": 128 }),
    want: u(21, 265),
  },
  {
    name: "str endsWith equality",
    build: (b) => {
      const ew = (n: string) =>
        b.member(b.ident(n, StringType), "endsWith", ["ends_with_string"], [b.lit("abcdefghijklmnopqrstuvwxyz")], BoolType);
      return b.call("_==_", ["equals"], [ew("str1"), ew("str2")], BoolType);
    },
    opts: celGo(),
    want: u(9, 9),
  },
  {
    name: "str size estimate",
    build: (b) => {
      const s = (n: string) => b.call("string", ["timestamp_to_string"], [b.ident(n, TimestampType)], StringType);
      return b.call("_==_", ["equals"], [s("timestamp1"), s("timestamp2")], BoolType);
    },
    opts: celGo(),
    want: u(5, 1844674407370955268n),
  },
  {
    name: "timestamp equality check",
    build: (b) => b.call("_==_", ["equals"], [b.ident("timestamp1", TimestampType), b.ident("timestamp2", TimestampType)], BoolType),
    opts: celGo(),
    want: u(3, 3),
  },
  {
    name: ".filter list literal",
    build: (b) => {
      const lst = b.list([1n, 2n, 3n, 4n, 5n].map((n) => b.lit(n)), intList);
      return b.filter(lst, "x", IntType, (x) => {
        const mod = b.call("_%_", ["modulo_int64"], [x, b.lit(2n)], IntType);
        return b.call("_==_", ["equals"], [mod, b.lit(0n)], BoolType);
      });
    },
    opts: celGo(),
    want: u(41, 101),
  },
  {
    name: ".map list literal",
    build: (b) => b.mapMacro(b.list([1n, 2n, 3n, 4n, 5n].map((n) => b.lit(n)), intList), "x", IntType, IntType, (x) => x),
    opts: celGo(),
    want: u(86, 86),
  },
  {
    name: ".map list literal selection",
    build: (b) => {
      const m = b.mapMacro(b.list([1n, 2n, 3n, 4n, 5n].map((n) => b.lit(n)), intList), "x", IntType, IntType, (x) => x);
      return b.call("_[_]", ["index_list"], [m, b.lit(4n)], IntType);
    },
    opts: celGo(),
    want: u(87, 87),
  },
  {
    name: "nested map selection",
    build: (b) => {
      const pair = () => b.list([b.lit(1n), b.lit(2n)], intList);
      const m = b.map(["a", "b", "c", "d", "e"].map((k): [Expr, Expr] => [b.lit(k), pair()]), mapOf(StringType, intList));
      return b.select(m, "b", intList);
    },
    opts: celGo(),
    want: u(81, 81),
  },
  {
    name: "nested comprehension",
    build: (b) =>
      b.all(b.list([b.lit(1n), b.lit(2n), b.lit(3n)], intList), "i", IntType, (i) => {
        const m = b.mapMacro(b.list([b.lit(1n), b.lit(2n), b.lit(3n)], intList), "j", IntType, IntType, (j) =>
          b.call("_+_", ["add_int64"], [j, b.ident("j", IntType)], IntType),
        );
        return b.call("@in", ["in_list"], [i, m], BoolType);
      }),
    opts: celGo(),
    want: u(20, 230),
  },
  {
    name: "nested dyn comprehension",
    build: (b) =>
      b.all(b.call("dyn", ["to_dyn"], [b.list([b.lit(1n), b.lit(2n), b.lit(3n)], intList)], DynType), "i", DynType, (i) => {
        const m = b.mapMacro(
          b.call("dyn", ["to_dyn"], [b.list([b.lit(1n), b.lit(2n), b.lit(3n)], intList)], DynType),
          "j",
          DynType,
          DynType,
          (j) => b.call("_+_", ["add_int64", "add_uint64", "add_double", "add_string", "add_bytes", "add_list"], [j, b.ident("j", DynType)], DynType),
        );
        return b.call("@in", ["in_list", "in_map"], [i, m], BoolType);
      }),
    opts: celGo(),
    want: u(21, 234),
  },
  {
    name: "literal map access",
    build: (b) => {
      const acc = (v: string) =>
        b.call("_[_]", ["index_map"], [b.map([[b.lit("hello"), b.lit(v)]], mapOf(StringType, StringType)), b.lit("hello")], StringType);
      return b.call("_!=_", ["not_equals"], [acc("hi"), acc("bye")], BoolType);
    },
    opts: celGo(),
    want: u(63, 63),
  },
  {
    name: "literal list access",
    build: (b) => {
      const acc = (v: string, i: bigint) =>
        b.call("_[_]", ["index_list"], [b.list([b.lit("hello"), b.lit(v)], listOf(StringType)), b.lit(i)], StringType);
      return b.call("_!=_", ["not_equals"], [acc("hi", 0n), acc("bye", 1n)], BoolType);
    },
    opts: celGo(),
    want: u(23, 23),
  },
  {
    name: "type literal equality cost",
    build: (b) => {
      const t = b.call("type", ["type"], [b.lit(1n)], typeOf(IntType));
      return b.call("_==_", ["equals"], [t, b.ident("int", typeOf(IntType))], BoolType);
    },
    opts: celGo(),
    want: u(3, 1844674407370955266n),
  },
  {
    name: "simple map variable equality",
    build: (b) =>
      b.call("_==_", ["equals"], [b.select(b.ident("self", mapOf(StringType, DoubleType)), "val1", DoubleType), b.lit(1.0)], BoolType),
    opts: celGo(),
    want: u(3, 3),
  },
  {
    name: "date-time math",
    build: (b) => {
      const ts = b.call("timestamp", ["string_to_timestamp"], [b.lit("2011-08-18T00:00:00.000+01:00")], TimestampType);
      const d = b.call("duration", ["string_to_duration"], [b.lit("19h3m37s10ms")], primitive("duration"));
      const sum = b.call("_+_", ["add_timestamp_duration"], [ts, d], TimestampType);
      return b.call("_==_", ["equals"], [b.select(b.ident("self", mapOf(StringType, TimestampType)), "val1", TimestampType), sum], BoolType);
    },
    opts: celGo(),
    want: u(6, 6),
  },
  {
    name: "bytes list max (custom estimate using the element size)",
    build: (b) => {
      const lst = b.list(
        Array.from({ length: 5 }, () => b.call("bytes", ["string_to_bytes"], [b.lit("012345678901")], BytesType)),
        listOf(BytesType),
      );
      return b.member(lst, "max", ["list_bytes_max"], [], BytesType);
    },
    opts: celGo(),
    want: u(25, 35),
  },
];

function primitive(kind: "duration"): CelType {
  return { kind };
}

/** A library declaring `max` on list(bytes) with Kubernetes' per-element estimate (cost_test's OverloadCostEstimate). */
const maxLib: CelLibrary = {
  name: "test.max",
  functions: [
    {
      name: "max",
      overloads: [
        {
          id: "list_bytes_max",
          member: true,
          params: [listOf(BytesType)],
          result: BytesType,
          cost: {
            estimate(args) {
              const list = args[0]!;
              const el = (list as { elementSize?: Estimate }).elementSize ?? { min: 0, max: Number.MAX_SAFE_INTEGER };
              const perEl = { min: 1 + Math.ceil(el.min * 0.1), max: 1 + Math.ceil(el.max * 0.1) };
              return { cost: { min: list.size.min * perEl.min, max: list.size.max * perEl.max } };
            },
          },
        },
      ],
    },
  ],
};

describe("estimateCost mirrors cel-go v0.26 checker/cost_test.go (list literal base 10, has() cost 1)", () => {
  it.each(celGoCases)("$name", ({ build, opts, want }) => {
    const b = new AstBuilder();
    const checked = b.checked(build(b));
    expect(estimateCostExact(checked, [maxLib], opts)).toEqual(want);
  });
});

describe("kapi defaults: list literal base 40 (kapi's spec), has() free (Kubernetes)", () => {
  const cases: { name: string; build: (b: AstBuilder) => Expr; h?: Record<string, number>; want: Estimate; note: string }[] = [
    {
      name: "[1, 2, 3]",
      build: (b) => b.list([b.lit(1n), b.lit(2n), b.lit(3n)], intList),
      want: { min: 40, max: 40 },
      note: "cel-go 10, +30 for the one list literal",
    },
    {
      name: "2 in [1, 2, 3]",
      build: (b) => b.call("@in", ["in_list"], [b.lit(2n), b.list([b.lit(1n), b.lit(2n), b.lit(3n)], intList)], BoolType),
      want: { min: 43, max: 43 },
      note: "cel-go 13, +30",
    },
    {
      name: "[1,2,3,4,5].map(x, x)",
      build: (b) => b.mapMacro(b.list([1n, 2n, 3n, 4n, 5n].map((n) => b.lit(n)), intList), "x", IntType, IntType, (x) => x),
      want: { min: 86 + 30 * 7, max: 86 + 30 * 7 },
      note: "cel-go 86; 7 list creations: the range, the accumulator's [] and one [x] per each of 5 iterations",
    },
    {
      name: "[1,2,3,4,5].filter(x, x % 2 == 0)",
      build: (b) =>
        b.filter(b.list([1n, 2n, 3n, 4n, 5n].map((n) => b.lit(n)), intList), "x", IntType, (x) =>
          b.call("_==_", ["equals"], [b.call("_%_", ["modulo_int64"], [x, b.lit(2n)], IntType), b.lit(0n)], BoolType),
        ),
      want: { min: 41 + 60, max: 101 + 60 + 30 * 5 },
      note: "cel-go {41, 101}; +60 for range and accumulator, and up to 5 more [x] at 30 each",
    },
    {
      name: "has(input.single_int32)",
      build: (b) => b.has(b.ident("input", allTypes), "single_int32"),
      want: { min: 1, max: 1 },
      note: "Kubernetes sets PresenceTestHasCost(false): cel-go's default would be 2",
    },
  ];
  it.each(cases)("$name ($note)", ({ build, want }) => {
    const b = new AstBuilder();
    expect(estimateCost(b.checked(build(b)), [])).toEqual(want);
  });
});

// CRD rules: sizes come from the schema along the path from self (apiextensions' sizeEstimator),
// figures from apiextensions-apiserver 1.34 compilation_test.go TestCostEstimation.
describe("CRD rules: schema-derived sizes (apiextensions TestCostEstimation)", () => {
  const request = 3 * 1024 * 1024;
  const numberArray = (maxItems?: number) => listOf(DoubleType, { maxSize: maxItems ?? Math.floor((request - 2) / 2) });
  const stringArray = (maxItems?: number) =>
    listOf({ kind: "string", maxSize: request - 2 }, { maxSize: maxItems ?? Math.floor((request - 2) / 3) });
  const str = (maxLength?: number): CelType => ({ kind: "string", maxSize: maxLength === undefined ? request - 2 : maxLength * 4 });

  const all = (b: AstBuilder, t: CelType, elem: CelType) => b.all(b.ident("self", t), "x", elem, () => b.lit(true, BoolType));
  const cases: { name: string; root: CelType; build: (b: AstBuilder, root: CelType) => Expr; want: number }[] = [
    { name: "number array with all, unbounded", root: numberArray(), build: (b, r) => all(b, r, DoubleType), want: 4718591 },
    { name: "number array with all, maxItems 10", root: numberArray(10), build: (b, r) => all(b, r, DoubleType), want: 32 },
    { name: "string array with all, unbounded", root: stringArray(), build: (b, r) => all(b, r, StringType), want: 3145727 },
    { name: "string array with all, maxItems 20", root: stringArray(20), build: (b, r) => all(b, r, StringType), want: 62 },
    {
      name: "string with contains, unbounded",
      root: str(),
      build: (b, r) => b.member(b.ident("self", r), "contains", ["contains_string"], [b.lit("test")], BoolType),
      want: 314574,
    },
    {
      name: "string with contains, maxLength 10",
      root: str(10),
      build: (b, r) => b.member(b.ident("self", r), "contains", ["contains_string"], [b.lit("test")], BoolType),
      want: 5,
    },
    {
      name: "string with startsWith",
      root: str(),
      build: (b, r) => b.member(b.ident("self", r), "startsWith", ["starts_with_string"], [b.lit("test")], BoolType),
      want: 2,
    },
    {
      name: "concat string, unbounded",
      root: str(),
      build: (b, r) => {
        const cat = b.call("_+_", ["add_string"], [b.ident("self", r), b.lit("hello")], StringType);
        const l = b.call("size", ["size_string"], [cat], IntType);
        return b.call("_>_", ["greater_int64"], [l, b.call("size", ["size_string"], [b.lit("hello")], IntType)], BoolType);
      },
      want: 314578,
    },
    {
      name: "concat string, maxLength 4",
      root: str(4),
      build: (b, r) => {
        const cat = b.call("_+_", ["add_string"], [b.ident("self", r), b.lit("hello")], StringType);
        const l = b.call("size", ["size_string"], [cat], IntType);
        return b.call("_>_", ["greater_int64"], [l, b.call("size", ["size_string"], [b.lit("hello")], IntType)], BoolType);
      },
      want: 7,
    },
    {
      name: "index of array with numbers (numbers have size 0 in the schema)",
      root: numberArray(),
      build: (b, r) =>
        b.call("_==_", ["equals"], [b.call("_[_]", ["index_list"], [b.ident("self", r), b.lit(1n)], DoubleType), b.lit(0.0)], BoolType),
      want: 2,
    },
    {
      name: "index of array with strings",
      root: stringArray(8),
      build: (b, r) => {
        const at = () => b.call("_[_]", ["index_list"], [b.ident("self", r), b.lit(1n)], StringType);
        return b.call("_==_", ["equals"], [at(), at()], BoolType);
      },
      want: 314577,
    },
    {
      name: "O(n^2) loop with numbers, maxItems 10",
      root: numberArray(10),
      build: (b, r) => b.all(b.ident("self", r), "x", DoubleType, () => all(b, r, DoubleType)),
      want: 352,
    },
    {
      name: "O(n^3) loop with numbers, maxItems 10",
      root: numberArray(10),
      build: (b, r) =>
        b.all(b.ident("self", r), "x", DoubleType, () => b.all(b.ident("self", r), "y", DoubleType, () => all(b, r, DoubleType))),
      want: 3552,
    },
    {
      name: "regex matches simple, unbounded",
      root: str(),
      build: (b, r) => b.member(b.ident("self", r), "matches", ["matches_string"], [b.lit("x")], BoolType),
      want: 314574,
    },
    {
      name: "regex matches simple, maxLength 50",
      root: str(50),
      build: (b, r) => b.member(b.ident("self", r), "matches", ["matches_string"], [b.lit("x")], BoolType),
      want: 22,
    },
    {
      name: "regex matches empty string",
      root: str(),
      build: (b) => b.member(b.lit(""), "matches", ["matches_string"], [b.lit("(((((((((())))))))))[0-9]")], BoolType),
      want: 7,
    },
    {
      name: "regex matches empty regex",
      root: str(),
      build: (b, r) => b.member(b.ident("self", r), "matches", ["matches_string"], [b.lit("")], BoolType),
      want: 1,
    },
    {
      name: "set string maxLength to zero",
      root: str(0),
      build: (b, r) => b.call("_==_", ["equals"], [b.ident("self", r), b.lit("x")], BoolType),
      want: 1,
    },
    {
      name: "string equality, unbounded",
      root: str(),
      build: (b, r) => b.call("_==_", ["equals"], [b.ident("self", r), b.lit("x")], BoolType),
      want: 2,
    },
  ];
  it.each(cases)("$name", ({ root, build, want }) => {
    const b = new AstBuilder();
    const est = estimateCost(b.checked(build(b, root)), [], { sizeRoot: root });
    expect(est.max).toBe(want);
  });

  it("rejects an unbounded nested loop by estimate and accepts it once maxItems is set", () => {
    const nested = (root: CelType) => {
      const b = new AstBuilder();
      return b.checked(b.all(b.ident("self", root), "x", DoubleType, () => all(b, root, DoubleType)));
    };
    const unbounded = estimateCost(nested(numberArray()), [], { sizeRoot: numberArray() });
    expect(unbounded.max).toBeGreaterThan(staticEstimatedCostLimit);
    const bounded = estimateCost(nested(numberArray(10)), [], { sizeRoot: numberArray(10) });
    expect(bounded.max).toBeLessThanOrEqual(staticEstimatedCostLimit);
    expect(bounded).toEqual({ min: 2, max: 352 });
  });
});

describe("saturation and hooks", () => {
  it("clamps cel-go's uint64 figures to Number.MAX_SAFE_INTEGER", () => {
    const b = new AstBuilder();
    const e = b.call("_==_", ["equals"], [b.call("type", ["type"], [b.lit(1n)], typeOf(IntType)), b.ident("int", typeOf(IntType))], BoolType);
    expect(estimateCost(b.checked(e), [])).toEqual({ min: 3, max: Number.MAX_SAFE_INTEGER });
    expect(estimateCostExact(b.checked(e), []).max < MAX_U64).toBe(true);
  });

  it("a declaration's cost wins over the standard table, arguments' costs added", () => {
    const lib: CelLibrary = {
      name: "test",
      functions: [
        {
          name: "contains",
          overloads: [
            {
              id: "contains_string",
              member: true,
              params: [StringType, StringType],
              result: BoolType,
              cost: exactCost(() => ({ cost: { min: 100n, max: 100n } }), () => 100),
            },
          ],
        },
      ],
    };
    const b = new AstBuilder();
    const e = b.member(b.ident("s", StringType), "contains", ["contains_string"], [b.lit("x")], BoolType);
    expect(estimateCost(b.checked(e), [lib])).toEqual({ min: 101, max: 101 });
  });

  it("library results carry sizes on (CallEstimate.resultSize)", () => {
    const lib: CelLibrary = {
      name: "test",
      functions: [
        {
          name: "lowerAscii",
          overloads: [
            {
              id: "string_lower_ascii",
              member: true,
              params: [StringType],
              result: StringType,
              cost: {
                estimate: (args) => ({
                  cost: { min: Math.ceil(args[0]!.size.min * 0.1), max: Math.ceil(args[0]!.size.max * 0.1) },
                  resultSize: args[0]!.size,
                }),
              },
            },
          ],
        },
      ],
    };
    const b = new AstBuilder();
    const root: CelType = { kind: "string", maxSize: 100 };
    const low = () => b.member(b.ident("self", root), "lowerAscii", ["string_lower_ascii"], [], StringType);
    const e = b.call("_==_", ["equals"], [low(), low()], BoolType);
    // each side: self 1 + lowerAscii ceil(100*0.1)=10; equality ceil(100*0.1)=10
    expect(estimateCost(b.checked(e), [lib], { sizeRoot: root })).toEqual({ min: 3, max: 32 });
  });

  it("cel.bind keeps the cost of its empty range and passes sizes through", () => {
    const b = new AstBuilder();
    const e = b.bind("x", b.lit("abc"), StringType, (x) => b.member(x, "contains", ["contains_string"], [b.lit("b")], BoolType), BoolType);
    // [] 40 + init 0 + (x 1 + contains 1×1)
    expect(estimateCost(b.checked(e), [])).toEqual({ min: 42, max: 42 });
  });
});
