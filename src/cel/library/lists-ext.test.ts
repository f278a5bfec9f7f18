import { describe, expect, it } from "vitest";
import { IntType, StringType, listOf } from "../types.js";
import { CelDuration, CelUint, type CelValue } from "../value.js";
import { extListsLibrary } from "./lists-ext.js";
import { actualCost, arg, caller, estimateCost } from "./overloads.testkit.js";

const call = caller(extListsLibrary);

// Cases from cel-go ext/lists_test.go (version 3).
describe("cel.lib.ext.lists", () => {
  it.each<[string, CelValue[], CelValue]>([
    ["list_slice", [[1n, 2n, 3n, 4n], 0n, 4n], [1n, 2n, 3n, 4n]],
    ["list_slice", [[1n, 2n, 3n, 4n], 0n, 0n], []],
    ["list_slice", [[1n, 2n, 3n, 4n], 1n, 3n], [2n, 3n]],
    ["list_flatten", [[1n, [2n, 3n], [4n]]], [1n, 2n, 3n, 4n]],
    ["list_flatten", [[1n, [2n, [3n, 4n]]]], [1n, 2n, [3n, 4n]]],
    ["list_flatten", [[1n, 2n, [], [], [3n, 4n]]], [1n, 2n, 3n, 4n]],
    ["list_flatten_int", [[1n, [2n, [3n, [4n]]]], 2n], [1n, 2n, 3n, [4n]]],
    ["list_flatten_int", [[1n, [2n, [3n, [4n]]]], 0n], [1n, [2n, [3n, [4n]]]]],
    ["list_flatten", [[]], []],
    ["list_int_sort", [[4n, 3n, 2n, 1n]], [1n, 2n, 3n, 4n]],
    ["list_string_sort", [["d", "a", "b", "c"]], ["a", "b", "c", "d"]],
    ["list_int_sort", [[]], []],
    ["list_google.protobuf.Duration_sort", [[new CelDuration(2n), new CelDuration(1n)]], [new CelDuration(1n), new CelDuration(2n)]],
    ["list_int_sortByAssociatedKeys", [["foo", "bar", "baz"], [3n, 1n, 2n]], ["bar", "baz", "foo"]],
    ["list_string_sortByAssociatedKeys", [[1n, 2n, 3n], ["b", "a", "b"]], [2n, 1n, 3n]],
    ["lists_range", [4n], [0n, 1n, 2n, 3n]],
    ["lists_range", [0n], []],
    ["lists_range", [-2n], []],
    ["list_reverse", [[5n, 1n, 2n, 3n]], [3n, 2n, 1n, 5n]],
    ["list_reverse", [[]], []],
    ["list_distinct", [[1n, 2n, 2n, 3n, 3n, 3n]], [1n, 2n, 3n]],
    ["list_distinct", [["b", "b", "c", "a", "c"]], ["b", "c", "a"]],
    ["list_distinct", [[1n, "b", 2n, "b"]], [1n, "b", 2n]],
    ["list_distinct", [[1n, 1.0, new CelUint(1n)]], [1n]],
    ["list_distinct", [[[1n], [1n], [2n]]], [[1n], [2n]]],
  ])("%s #%#", (id, args, want) => {
    expect(call(id, ...args)).toEqual(want);
  });

  it.each<[string, CelValue[], string]>([
    ["list_slice", [[1n, 2n, 3n, 4n], 3n, 0n], "cannot slice(3, 0), start index must be less than or equal to end index"],
    ["list_slice", [[1n, 2n, 3n, 4n], 0n, 10n], "cannot slice(0, 10), list is length 4"],
    ["list_slice", [[1n, 2n, 3n, 4n], -5n, 10n], "cannot slice(-5, 10), negative indexes not supported"],
    ["list_flatten_int", [[1n, [2n]], -1n], "level must be non-negative"],
    ["list_int_sort", [[1n, "b"]], "list elements must have the same type"],
    ["list_int_sort", [[[1n], [2n]]], "list elements must be comparable"],
    ["list_int_sortByAssociatedKeys", [[1n], [1n, 2n]], "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got 1 and 2 elements respectively"],
    ["list_flatten", ["x"], "no such overload: string.flatten()"],
  ])("%s #%# fails: %s", (id, args, message) => {
    expect(() => call(id, ...args)).toThrow(message);
  });

  it("costs as cel-go's version-3 estimators and trackers", () => {
    // result size + call + list allocation (cel-go's ListCreateBaseCost 10)
    expect(actualCost(extListsLibrary, "list_slice", [[1n, 2n, 3n, 4n], 1n, 3n], [2n, 3n])).toBe(13);
    expect(estimateCost(extListsLibrary, "list_slice", [arg(listOf(IntType), 4), arg(IntType, 1, 1, 1n), arg(IntType, 1, 1, 3n)])).toEqual({
      cost: { min: 13, max: 13 },
      resultSize: { min: 2, max: 2 },
    });
    expect(actualCost(extListsLibrary, "list_flatten_int", [[1n, [2n]], 2n], [1n, 2n])).toBe(15);
    expect(actualCost(extListsLibrary, "list_int_sort", [[3n, 2n, 1n]], [1n, 2n, 3n])).toBe(29);
    expect(actualCost(extListsLibrary, "list_string_sort", [["b", "a"]], ["a", "b"])).toBe(19);
    expect(estimateCost(extListsLibrary, "list_string_sort", [arg(listOf(StringType), 2)])?.cost).toEqual({ min: 20, max: 20 });
    expect(actualCost(extListsLibrary, "list_distinct", [[]], [])).toBe(11);
    expect(estimateCost(extListsLibrary, "lists_range", [arg(IntType, 1, 1, 5n)])).toEqual({ cost: { min: 16, max: 16 }, resultSize: { min: 5, max: 5 } });
  });
});
