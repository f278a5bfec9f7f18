import { describe } from "vitest";
import { DynType, IntType, StringType, listOf } from "../types.js";
import { CelDuration, CelUint } from "../value.js";
import { compileErr, evalErr, table, testEnv } from "./e2e.testkit.js";

describe("kubernetes.lists end to end", () => {
  table([
    ["[1, 2, 3].isSorted()", true],
    ["[1, 3, 2].isSorted()", false],
    ["[].isSorted()", true],
    ["['a', 'b', 'b'].isSorted()", true],
    ["[2.0, 1.0].isSorted()", false],
    ["[duration('1s'), duration('2s')].isSorted()", true],
    ["[[1], [2]].isSorted()", compileErr("found no matching overload for 'isSorted' applied to 'list(list(int)).()'")],
    ["[1, 2, 3].sum()", 6n],
    ["[1.5, 2.5].sum()", 4.0],
    ["[1u, 2u].sum()", new CelUint(3n)],
    ["[duration('1s'), duration('2s')].sum()", new CelDuration(3_000_000_000n)],
    ["[].sum()", 0n],
    ["['a'].sum()", compileErr("found no matching overload for 'sum' applied to 'list(string).()'")],
    ["[9223372036854775807, 1].sum()", evalErr("integer overflow")],
    ["[3, 1, 2].min()", 1n],
    ["['b', 'a'].min()", "a"],
    ["[1].min()", 1n],
    ["[].min()", evalErr("min called on empty list")],
    ["[[1]].min()", compileErr("found no matching overload for 'min' applied to 'list(list(int)).()'")],
    ["[3, 1, 2].max()", 3n],
    ["[b'a', b'b'].max()", new Uint8Array([0x62])],
    ["[].max()", evalErr("max called on empty list")],
    ["[1, 2, 3].indexOf(2)", 1n],
    ["[1, 2, 2].indexOf(2)", 1n],
    ["[1, 2, 3].indexOf(4)", -1n],
    ["[].indexOf(1)", -1n],
    ["[1, 2, 3].indexOf('a')", compileErr("found no matching overload for 'indexOf' applied to 'list(int).(string)'")],
    ["[1, 2, 2].lastIndexOf(2)", 2n],
    ["['a', 'b'].lastIndexOf('c')", -1n],
    ["[[1], [2], [1]].lastIndexOf([1])", 2n],
    ["[1].lastIndexOf('a')", compileErr("found no matching overload for 'lastIndexOf' applied to 'list(int).(string)'")],
    ["[1].max(1)", compileErr("found no matching overload for 'max' applied to 'list(int).(int)'")],
    ["[1].isSorted(1)", compileErr("found no matching overload for 'isSorted' applied to 'list(int).(int)'")],
    ["'a'.sum()", compileErr("found no matching overload for 'sum' applied to 'string.()'")],
  ]);

  // dyn lists: mixed kinds order as upstream (only unorderable elements fail)
  const env = testEnv({ xs: listOf(DynType), ints: listOf(IntType), strs: listOf(StringType) });
  table(
    [
      ["xs.sum()", 6n],
      ["xs.max()", 3n],
      ["ints.isSorted() && strs.isSorted()", true],
    ],
    env,
    { xs: [1n, 2n, 3n], ints: [1n, 2n], strs: ["a", "b"] },
  );
});

describe("cel.lib.ext.lists (version 3) end to end", () => {
  table([
    ["[1, 2, 3, 4].slice(0, 4)", [1n, 2n, 3n, 4n]],
    ["[1, 2, 3, 4].slice(1, 3)", [2n, 3n]],
    ["[1, 2, 3, 4].slice(0, 0)", []],
    ["[1, 2, 3, 4].slice(3, 0)", evalErr("cannot slice(3, 0), start index must be less than or equal to end index")],
    ["[1, 2, 3, 4].slice(0, 10)", evalErr("cannot slice(0, 10), list is length 4")],
    ["[1, 2, 3, 4].slice(-5, 10)", evalErr("cannot slice(-5, 10), negative indexes not supported")],
    ["[1, 2].slice('a', 1)", compileErr("found no matching overload for 'slice' applied to 'list(int).(string, int)'")],
    ["[dyn(1), dyn([2, 3]), dyn([4])].flatten()", [1n, 2n, 3n, 4n]],
    ["[[[1]], [[2, 3]]].flatten()", [[1n], [2n, 3n]]],
    ["[[[1]], [[2, 3]]].flatten(2)", [1n, 2n, 3n]],
    ["[].flatten()", []],
    ["[[1], [2]].flatten(-1)", evalErr("level must be non-negative")],
    ["[[1], [2]].flatten('a')", compileErr("found no matching overload for 'flatten' applied to 'list(list(int)).(string)'")],
    ["lists.range(4)", [0n, 1n, 2n, 3n]],
    ["lists.range(0)", []],
    ["lists.range('a')", compileErr("found no matching overload for 'lists.range' applied to '(string)'")],
    ["[5, 1, 2, 3].reverse()", [3n, 2n, 1n, 5n]],
    ["[].reverse()", []],
    ["'abc'.reverse()", compileErr("found no matching overload for 'reverse' applied to 'string.()'")],
    ["[1, 2, 2, 3, 3, 3].distinct()", [1n, 2n, 3n]],
    ["['b', 'b', 'c', 'a', 'c'].distinct()", ["b", "c", "a"]],
    ["[dyn(1), dyn(1.0), dyn(1u)].distinct()", [1n]],
    ["[[1], [1], [2]].distinct()", [[1n], [2n]]],
    ["[].distinct()", []],
    ["'a'.distinct()", compileErr("found no matching overload for 'distinct' applied to 'string.()'")],
    ["[4, 3, 2, 1].sort()", [1n, 2n, 3n, 4n]],
    ["['d', 'a', 'b', 'c'].sort()", ["a", "b", "c", "d"]],
    ["[].sort()", []],
    ["[duration('2s'), duration('1s')].sort()", [new CelDuration(1_000_000_000n), new CelDuration(2_000_000_000n)]],
    ["[dyn(1), dyn('b')].sort()", evalErr("list elements must have the same type")],
    ["[[2], [1]].sort()", compileErr("found no matching overload for 'sort' applied to 'list(list(int)).()'")],
    ["[1].reverse(1)", compileErr("found no matching overload for 'reverse' applied to 'list(int).(int)'")],
    ["lists.range(-2)", []],
    // the homogeneous-literal rule: mixed element types need dyn()
    ["[1, [2]].flatten()", compileErr("expected type 'int' but found 'list(int)'")],
    ["[dyn(1), 'b'].sort()", compileErr("expected type 'dyn' but found 'string'")],
  ]);
});

describe("cel.lib.ext.lists flatten of nested dyn values", () => {
  table(
    [
      ["v.flatten()", [1n, 2n, [3n, [4n]]]],
      ["v.flatten(2)", [1n, 2n, 3n, [4n]]],
      ["v.flatten(0)", [1n, [2n, [3n, [4n]]]]],
      ["v.flatten(10)", [1n, 2n, 3n, 4n]],
      // cel-go declares flatten without type guards: its own messages
      ["dyn('x').flatten()", evalErr("no such overload: string.flatten()")],
      ["dyn('x').flatten(1)", evalErr("no such overload: string.flatten(int)")],
      ["v.flatten(dyn('a'))", evalErr("no such overload: list.flatten(string)")],
    ],
    testEnv({ v: listOf(DynType) }),
    { v: [1n, [2n, [3n, [4n]]]] },
  );
});

// The `sortBy` macro (ext.Lists version 2+) is expanded by the parser, which does not declare it
// yet (src/cel/parser/macros.ts defaultMacros has no sortBy): skipped until the parser adds it.
describe("cel.lib.ext.lists sortBy macro", () => {
  table([
    ["['foo', 'bar', 'baz'].sortBy(e, e == 'foo' ? 0 : 1)", ["foo", "bar", "baz"]],
    ["[{'n': 3}, {'n': 1}, {'n': 2}].sortBy(m, m.n).map(m, m.n)", [1n, 2n, 3n]],
    ["[3, 1, 2].sortBy(x, -x)", [3n, 2n, 1n]],
    // Keys must be of a comparable type: @sortByAssociatedKeys is declared per comparable type
    // (cel-go's templated overloads), so a list key is refused when checked.
    ["[1, 2].sortBy(x, [x])", compileErr("found no matching overload for '@sortByAssociatedKeys' applied to 'list(int).(list(list(int)))'")],
    // Keys of mixed types only reach the runtime through dyn.
    ["[1, 2, 3].sortBy(x, x == 1 ? dyn('a') : dyn(x))", evalErr("list elements must have the same type")],
  ]);
});
