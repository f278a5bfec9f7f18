import { describe, expect, it } from "vitest";
import { IntType, listOf } from "../types.js";
import { CelUint, type CelValue } from "../value.js";
import { setsLibrary } from "./sets.js";
import { actualCost, arg, caller, estimateCost } from "./overloads.testkit.js";

const call = caller(setsLibrary);

// Cases from cel-go ext/sets_test.go.
describe("cel.lib.ext.sets", () => {
  it.each<[string, CelValue[], boolean]>([
    ["list_sets_contains_list", [[], []], true],
    ["list_sets_contains_list", [[1n], []], true],
    ["list_sets_contains_list", [[1n], [1n]], true],
    ["list_sets_contains_list", [[1n], [1n, 1n]], true],
    ["list_sets_contains_list", [[1n, 2n], [2n, 1n]], true],
    ["list_sets_contains_list", [[1n, 2n], [3n]], false],
    ["list_sets_contains_list", [[1n], [1.0, new CelUint(1n)]], true],
    ["list_sets_contains_list", [[[1n], [2n, 3n]], [[2n, 3.0]]], true],
    ["list_sets_contains_list", [[1n, "1"], [1.0]], true],
    ["list_sets_equivalent_list", [[], []], true],
    ["list_sets_equivalent_list", [[1n], [1n, 1n]], true],
    ["list_sets_equivalent_list", [[1n, 2n, 3n], [3n, 2n, 1n]], true],
    ["list_sets_equivalent_list", [[1n], [1n, 2n]], false],
    ["list_sets_intersects_list", [[], []], false],
    ["list_sets_intersects_list", [[1n], []], false],
    ["list_sets_intersects_list", [[1n], [1n, 2n]], true],
    ["list_sets_intersects_list", [[1n], [1.0]], true],
    ["list_sets_intersects_list", [[1n, 2n], [3n]], false],
  ])("%s #%#", (id, args, want) => {
    expect(call(id, ...args)).toBe(want);
  });

  it("costs size(a) × size(b) × factor + 1", () => {
    expect(actualCost(setsLibrary, "list_sets_contains_list", [[1n, 2n, 3n], [1n, 2n]], true)).toBe(7);
    expect(actualCost(setsLibrary, "list_sets_equivalent_list", [[1n, 2n, 3n], [1n, 2n]], false)).toBe(13);
    expect(estimateCost(setsLibrary, "list_sets_intersects_list", [arg(listOf(IntType), 0, 3), arg(listOf(IntType), 1, 2)])?.cost).toEqual({
      min: 1,
      max: 7,
    });
  });
});
