import { describe, expect, it } from "vitest";
import { StringType } from "../types.js";
import type { CelValue } from "../value.js";
import { regexLibrary } from "./regex.js";
import { actualCost, arg, caller, estimateCost } from "./overloads.testkit.js";

const call = caller(regexLibrary);

describe("kubernetes.regex", () => {
  it.each<[string, CelValue[], CelValue]>([
    ["string_find_string", ["abc 123", "[0-9]+"], "123"],
    ["string_find_string", ["abc", "[0-9]+"], ""],
    ["string_find_string", ["abc", "x*"], ""],
    ["string_find_all_string", ["123 abc 456", "[0-9]+"], ["123", "456"]],
    ["string_find_all_string", ["abc", "[0-9]+"], []],
    ["string_find_all_string_int", ["123 abc 456", "[0-9]+", 1n], ["123"]],
    ["string_find_all_string_int", ["123 abc 456", "[0-9]+", 0n], []],
    ["string_find_all_string_int", ["123 abc 456", "[0-9]+", -1n], ["123", "456"]],
    // Go's FindAllString: an empty match right after a match is dropped
    ["string_find_all_string", ["baaab", "a*"], ["", "aaa", "", ""].filter((_, i) => i !== 3)],
    ["string_find_all_string", ["abc", ""], ["", "", "", ""]],
    ["string_find_all_string", ["a😀b", "."], ["a", "😀", "b"]],
    ["string_find_all_string", ["xax", "^x"], ["x"]],
  ])("%s #%#", (id, args, want) => {
    expect(call(id, ...args)).toEqual(want);
  });

  it("reports a bad pattern as upstream", () => {
    expect(() => call("string_find_string", "abc", "[a")).toThrow("Illegal regex: error parsing regexp: missing closing ]: `[a`");
    expect(() => call("string_find_all_string", "abc", "(a")).toThrow("Illegal regex: error parsing regexp: missing closing ): `(a`");
  });

  it("costs input × pattern (library/cost.go)", () => {
    expect(actualCost(regexLibrary, "string_find_string", ["abc 123 def 123", "123"], "123")).toBe(2);
    expect(actualCost(regexLibrary, "string_find_all_string_int", ["abc 123 def 123", "123", 1n], [])).toBe(2);
    expect(estimateCost(regexLibrary, "string_find_all_string", [arg(StringType, 15), arg(StringType, 3)])).toEqual({
      cost: { min: 2, max: 2 },
      resultSize: { min: 0, max: 15 },
    });
    expect(actualCost(regexLibrary, "string_find_string", ["x".repeat(99), "a".repeat(40)], "")).toBe(100);
  });
});
