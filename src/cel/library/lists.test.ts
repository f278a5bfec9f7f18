import { describe, expect, it } from "vitest";
import { BytesType, DynType, IntType, StringType, listOf } from "../types.js";
import { CelDuration, CelMap, CelTimestamp, CelUint, type CelValue } from "../value.js";
import { listsLibrary } from "./lists.js";
import { actualCost, arg, caller, estimateCost } from "./overloads.testkit.js";

const call = caller(listsLibrary);
const u = (n: number) => new CelUint(BigInt(n));

// Kubernetes list library: typical, edge and error cases with upstream's texts.
describe("kubernetes.lists", () => {
  it.each<[string, CelValue[], CelValue]>([
    ["list_int_is_sorted_bool", [[1n, 2n, 3n]], true],
    ["list_string_is_sorted_bool", [["a", "b", "a"]], false],
    ["list_int_is_sorted_bool", [[]], true],
    ["list_double_is_sorted_bool", [[1n, 2.5, u(3)]], true], // cross-type numeric comparison
    ["list_timestamp_is_sorted_bool", [[new CelTimestamp(2n), new CelTimestamp(1n)]], false],
    ["list_int_sum_int", [[1n, 2n, 3n]], 6n],
    ["list_double_sum_double", [[1.5, 2.0]], 3.5],
    ["list_int_sum_int", [[]], 0n],
    ["list_double_sum_double", [[]], 0],
    ["list_uint_sum_uint", [[u(1), u(2)]], u(3)],
    ["list_duration_sum_duration", [[new CelDuration(1n), new CelDuration(2n)]], new CelDuration(3n)],
    ["list_int_min_int", [[3n, 1n, 2n]], 1n],
    ["list_string_max_string", [["b", "a", "c"]], "c"],
    ["list_bool_max_bool", [[false, true]], true],
    ["list_a_index_of_int", [[1n, 2n, 1n], 1n], 0n],
    ["list_a_last_index_of_int", [[1n, 2n, 1n], 1n], 2n],
    ["list_a_index_of_int", [["a"], "z"], -1n],
    ["list_a_index_of_int", [[1n, 2n], 2.0], 1n],
    ["list_a_index_of_int", [[[1n], [2n]], [2n]], 1n],
    ["list_a_index_of_int", [[CelMap.fromRecord({ a: 1n })], CelMap.fromRecord({ a: 1.0 })], 0n],
    ["list_a_last_index_of_int", [[], 1n], -1n],
  ])("%s #%#", (id, args, want) => {
    expect(call(id, ...args)).toEqual(want);
  });

  it.each<[string, CelValue[], string]>([
    ["list_int_min_int", [[]], "min called on empty list"],
    ["list_int_max_int", [[]], "max called on empty list"],
    ["list_int_is_sorted_bool", [[1n, [2n]]], "no such overload"],
    ["list_int_sum_int", [[9223372036854775807n, 1n]], "integer overflow"],
    ["list_uint_sum_uint", [[new CelUint(2n ** 64n - 1n), u(1)]], "unsigned integer overflow"],
    ["list_int_sum_int", [[1n, 1.5]], "no such overload"],
  ])("%s #%# fails: %s", (id, args, message) => {
    expect(() => call(id, ...args)).toThrow(message);
  });

  it("orders like cel-go: incomparable kinds in a dyn list do not fail isSorted", () => {
    expect(call("list_int_is_sorted_bool", [1n, "a"])).toBe(true);
  });

  it("costs one traversal (library/cost.go)", () => {
    const ints = [1n, 2n, 3n, 4n, 5n];
    expect(actualCost(listsLibrary, "list_int_sum_int", [ints], 15n)).toBe(5);
    const strs = Array(5).fill("012345678901");
    expect(actualCost(listsLibrary, "list_string_max_string", [strs], strs[0])).toBe(5);
    expect(estimateCost(listsLibrary, "list_int_sum_int", [arg(listOf(IntType), 5)])?.cost).toEqual({ min: 5, max: 5 });
    // strings: one unit per element plus a traversal of each (elements of 0..12 characters)
    expect(
      estimateCost(listsLibrary, "list_string_max_string", [arg(listOf({ kind: "string", maxSize: 12 }), 5)])?.cost,
    ).toEqual({ min: 5, max: 15 });
    expect(estimateCost(listsLibrary, "list_bytes_max_bytes", [arg(listOf({ ...BytesType, maxSize: 12 }), 5)])?.cost).toEqual({
      min: 5,
      max: 15,
    });
    // a receiver that is not a list (dyn): charged as a string traversal
    expect(estimateCost(listsLibrary, "list_a_index_of_int", [arg(DynType, 50), arg(StringType, 3)])?.cost).toEqual({ min: 5, max: 5 });
  });
});
