import { describe, expect, it } from "vitest";
import type { ArgEstimate, Estimate } from "../library.js";
import { BytesType, IntType, StringType, listOf, type CelType } from "../types.js";
import { CelMap, CelOptional, type CelValue } from "../value.js";
import { actualSize } from "./arith.js";
import { actualCallCost, stdCallCosts } from "./std-costs.js";

const arg = (type: CelType, min: number, max: number): ArgEstimate => ({ type, size: { min, max } });
const S = (min: number, max = min) => arg(StringType, min, max);
const B = (min: number, max = min) => arg(BytesType, min, max);
const L = (min: number, max = min) => arg(listOf(IntType), min, max);
const I = () => arg(IntType, 1, 1);
const MAX = Number.MAX_SAFE_INTEGER;
const bytes = (n: number) => new Uint8Array(n);
const str = (n: number) => "x".repeat(n);

// Estimates: cel-go v0.26 checker/cost.go functionCost; arguments receiver first. The cost is
// the call's own (the estimator adds the arguments' costs).
const estimates: { id: string; args: ArgEstimate[]; cost: Estimate; resultSize?: Estimate }[] = [
  { id: "starts_with_string", args: [S(0, 1000), S(0, 500)], cost: { min: 0, max: 50 } },
  { id: "ends_with_string", args: [S(0, 1000), S(26)], cost: { min: 3, max: 3 } },
  { id: "string_to_bytes", args: [S(10, 500)], cost: { min: 1, max: 50 }, resultSize: { min: 10, max: 2000 } },
  { id: "bytes_to_string", args: [B(10, 500)], cost: { min: 1, max: 50 }, resultSize: { min: 2, max: 500 } },
  { id: "strings_quote", args: [S(3, 50)], cost: { min: 1, max: 5 }, resultSize: { min: 5, max: 102 } },
  { id: "string_format", args: [S(25), L(3)], cost: { min: 3, max: 3 } },
  { id: "in_list", args: [I(), L(0, 20)], cost: { min: 0, max: 20 } },
  { id: "matches_string", args: [S(0, 500), S(5)], cost: { min: 2, max: 102 } },
  { id: "matches_string", args: [S(0, 100), S(0)], cost: { min: 0, max: 0 } },
  { id: "contains_string", args: [S(0, 500), S(0, 500)], cost: { min: 0, max: 2500 } },
  { id: "contains_string", args: [S(7), S(0, 20)], cost: { min: 0, max: 2 } },
  { id: "add_string", args: [S(0, 10), S(5)], cost: { min: 1, max: 2 }, resultSize: { min: 5, max: 15 } },
  { id: "add_bytes", args: [B(4), B(6)], cost: { min: 1, max: 1 }, resultSize: { min: 10, max: 10 } },
  { id: "add_list", args: [L(0, 10), L(2)], cost: { min: 1, max: 1 }, resultSize: { min: 2, max: 12 } },
  { id: "equals", args: [I(), I()], cost: { min: 1, max: 1 } },
  { id: "equals", args: [S(0, 0), S(1)], cost: { min: 0, max: 0 } },
  { id: "not_equals", args: [S(0, 300), S(0, 120)], cost: { min: 1, max: 12 } },
  { id: "less_string", args: [S(0, 55), S(0, 1000)], cost: { min: 1, max: 6 } },
  { id: "greater_bytes", args: [B(0, 10), B(0, 10)], cost: { min: 1, max: 1 } },
  { id: "less_equals_bytes", args: [B(0, 100), B(0, 100)], cost: { min: 1, max: 10 } },
  { id: "greater_equals_string", args: [S(0, MAX), S(0, MAX)], cost: { min: 1, max: MAX } },
  // unknown sizes saturate
  { id: "contains_string", args: [S(0, MAX), S(3)], cost: { min: 0, max: MAX } },
];

describe("stdCallCosts estimates (cel-go v0.26 checker/cost.go)", () => {
  it.each(estimates)("$id $args.0.size → $cost", ({ id, args, cost, resultSize }) => {
    const r = stdCallCosts.get(id)!.estimate!(args);
    expect(r.cost).toEqual(cost);
    expect(r.resultSize).toEqual(resultSize);
  });

  it("costs 1 where cel-go has no rule (the global matches() of v0.26, size, conversions)", () => {
    for (const id of ["matches", "size_string", "string_size", "list_size", "int64_to_string", "string_to_timestamp", "string_to_duration", "index_list", "index_map", "in_map"]) {
      expect(stdCallCosts.has(id)).toBe(false);
    }
  });
});

// Runtime: cel-go v0.26 interpreter/runtimecost.go costCall; args as the interpreter passes them
// (receiver first), sizes by actualSize (code points of strings, bytes, items, entries).
const actuals: { name: string; id: string; args: CelValue[]; result?: CelValue; cost: number }[] = [
  { name: "startsWith charges the receiver (v0.26)", id: "starts_with_string", args: [str(95), "a"], cost: 10 },
  { name: "endsWith charges the receiver (v0.26)", id: "ends_with_string", args: [str(5), str(100)], cost: 1 },
  { name: "bytes(string)", id: "string_to_bytes", args: [str(101)], cost: 11 },
  { name: "string(bytes)", id: "bytes_to_string", args: [bytes(30)], cost: 3 },
  { name: "strings.quote", id: "strings_quote", args: [str(0)], cost: 0 },
  { name: "format", id: "string_format", args: ["%s %s", ["a", "b"]], cost: 1 },
  { name: "in list", id: "in_list", args: [2n, [1n, 2n, 3n]], cost: 3 },
  { name: "in empty list", id: "in_list", args: [2n, []], cost: 0 },
  { name: "matches", id: "matches_string", args: [str(500), "[0-9]"], cost: 51 * 2 },
  { name: "matches on empty input", id: "matches_string", args: ["", "(((((((((())))))))))[0-9]"], cost: 1 * 7 },
  { name: "contains", id: "contains_string", args: [str(500), str(500)], cost: 2500 },
  { name: "contains short", id: "contains_string", args: ["abc", "b"], cost: 1 },
  { name: "contains empty", id: "contains_string", args: ["abc", ""], cost: 0 },
  { name: "string concatenation", id: "add_string", args: [str(15), str(10)], cost: 3 },
  { name: "bytes concatenation", id: "add_bytes", args: [bytes(1), bytes(0)], cost: 1 },
  { name: "list concatenation", id: "add_list", args: [[1n], [2n]], cost: 1 },
  { name: "int equality", id: "equals", args: [1n, 2n], cost: 1 },
  { name: "string equality: the shorter side", id: "equals", args: [str(1000), str(31)], cost: 4 },
  { name: "empty string equality", id: "not_equals", args: ["", "abc"], cost: 0 },
  { name: "list equality", id: "equals", args: [[1n, 2n], [1n, 2n]], cost: 1 },
  { name: "string ordering", id: "less_string", args: [str(55), str(60)], cost: 6 },
  { name: "unicode strings count code points", id: "greater_equals_string", args: ["👑".repeat(11), "👑".repeat(11)], cost: 2 },
];

describe("stdCallCosts actual (cel-go v0.26 interpreter/runtimecost.go)", () => {
  it.each(actuals)("$name", ({ id, args, result, cost }) => {
    expect(actualCallCost(id, undefined, args, result ?? null)).toBe(cost);
  });

  it("everything else costs 1, and a declaration's own cost wins", () => {
    expect(actualCallCost("size_string", undefined, ["abc"], 3n)).toBe(1);
    expect(actualCallCost("matches", undefined, [str(1000), "a+"], true)).toBe(1);
    expect(actualCallCost("equals", { actual: () => 42 }, [1n, 1n], true)).toBe(42);
  });
});

describe("actualSize", () => {
  it.each<[string, CelValue, number]>([
    ["string code points", "a👑b", 3],
    ["bytes", bytes(7), 7],
    ["list", [1n, 2n], 2],
    ["map", CelMap.fromRecord({ a: 1n, b: 2n }), 2],
    ["optional with value", CelOptional.of("abcd"), 4],
    ["optional none", CelOptional.none, 1],
    ["int", 5n, 1],
    ["bool", true, 1],
  ])("%s", (_n, v, want) => {
    expect(actualSize(v)).toBe(want);
  });
});
