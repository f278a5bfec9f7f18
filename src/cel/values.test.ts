import { celList, celMap, celUint } from "@bufbuild/cel";
import { describe, expect, it } from "vitest";
import { celInput, celLiteral } from "./values.js";

describe("celInput", () => {
  it("reads JSON whole numbers as int, others as double, objects as maps", () => {
    expect(celInput(3)).toBe(3n);
    expect(celInput(2.5)).toBe(2.5);
    expect(celInput({ a: [1, "x", null, true] })).toEqual(new Map([["a", [1n, "x", null, true]]]));
  });

  it("refuses what JSON cannot hold", () => {
    expect(() => celInput(() => 1)).toThrow(/no CEL value/);
  });
});

describe("celLiteral", () => {
  it.each([
    [true, "true"],
    [6n, "6"],
    [-6n, "-6"],
    [celUint(6n), "6u"],
    [1.5, "1.5"],
    [2, "2.0"],
    [Number.NaN, 'double("NaN")'],
    [null, "null"],
    ["a \"quoted\"\n", '"a \\"quoted\\"\\n"'],
    [new Uint8Array([104, 0, 255]), 'b"h\\x00\\xff"'],
  ])("%s → %s", (v, text) => {
    expect(celLiteral(v)).toBe(text);
  });

  it("writes lists and maps in CEL syntax, nested", () => {
    expect(celLiteral(celList([1n, celList(["a"])]))).toBe('[1, ["a"]]');
    expect(celLiteral(celMap(new Map<string, unknown>([["k", 1n], ["m", celMap(new Map([["x", true]]))]]) as never))).toBe('{"k": 1, "m": {"x": true}}');
  });
});
