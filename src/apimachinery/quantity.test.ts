import { describe, expect, it } from "vitest";
import { compareQuantity, formatQuantity, formatQuantityPtr, isZeroQuantity, parseQuantity, quantityError } from "./quantity.js";

describe("formatQuantity", () => {
  it.each([
    ["10Gi", "10Gi"],
    ["1024Mi", "1Gi"],
    ["1536Mi", "1536Mi"],
    ["1.5Gi", "1536Mi"],
    ["100Ki", "100Ki"],
    ["0.1Ki", "102400m"],
    ["512", "512"],
    ["1000", "1k"],
    ["1500", "1500"],
    ["2", "2"],
    ["500m", "500m"],
    ["0.5", "500m"],
    ["1000m", "1"],
    ["2000M", "2G"],
    ["1e3", "1e3"],
    ["0", "0"],
    ["0Gi", "0"],
    ["-250m", "-250m"],
    ["1n", "1n"],
    ["0.0000000001", "1n"],
    ["bogus", "bogus"],
  ])("%s -> %s", (input, want) => {
    expect(formatQuantity(input)).toBe(want);
  });

  it("handles absent values", () => {
    expect(formatQuantity(undefined)).toBe("0");
    expect(formatQuantityPtr(undefined)).toBe("<nil>");
    expect(formatQuantity(3)).toBe("3");
  });

  it("answers the same for a string read again, and past the number of strings it remembers", () => {
    const inputs = Array.from({ length: 3000 }, (_, n) => `${n * 1024}Mi`);
    const first = inputs.map((q) => [formatQuantity(q), parseQuantity(q)]);
    expect(first[3]).toEqual(["3Gi", { n: 3n * 1024n ** 3n, d: 1n }]);
    expect(inputs.map((q) => [formatQuantity(q), parseQuantity(q)])).toEqual(first);
    expect(formatQuantity("junk")).toBe("junk");
    expect(parseQuantity("junk")).toBeUndefined();
    expect(parseQuantity("junk")).toBeUndefined();
    expect(formatQuantity(" 1Gi ")).toBe("1Gi");
  });
});

describe("parseQuantity / compareQuantity / isZeroQuantity", () => {
  it("parses to an exact fraction, binary and decimal suffixes alike", () => {
    expect(parseQuantity("1Ki")).toEqual({ n: 1024n, d: 1n });
    expect(parseQuantity("250m")).toEqual({ n: 250n, d: 1000n });
    expect(parseQuantity("-1.5e3")).toEqual({ n: -1500n, d: 1n });
    expect(parseQuantity(2)).toEqual({ n: 2n, d: 1n });
    expect(parseQuantity("bogus")).toBeUndefined();
    expect(parseQuantity({})).toBeUndefined();
  });

  it("rounds precision finer than nano units up, as ParseQuantity does", () => {
    expect(parseQuantity("0.0000000001")).toEqual({ n: 1n, d: 1_000_000_000n });
  });

  it("compares across suffixes like Quantity.Cmp", () => {
    expect(compareQuantity("1Gi", "1024Mi")).toBe(0);
    expect(compareQuantity("1G", "1Gi")).toBe(-1);
    expect(compareQuantity("500m", "0.4")).toBe(1);
    expect(compareQuantity("-1", "0")).toBe(-1);
    expect(compareQuantity("bogus", "0")).toBe(0);
  });

  it("knows zero in any spelling", () => {
    expect(isZeroQuantity("0Gi")).toBe(true);
    expect(isZeroQuantity("0.000m")).toBe(true);
    expect(isZeroQuantity("1n")).toBe(false);
  });
});

describe("quantityError (ParseQuantity's refusals, as Quantity's JSON decoding says them)", () => {
  const formatWrong = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  it("takes what ParseQuantity takes, numbers and trimmed strings included", () => {
    for (const ok of ["0", "1", " 1 ", "+1", "-1", "1.5", "1.", ".5", "1.G", "100m", "1Ki", "5Ei", "1E", "1e3", "1E-3", "1e+308", "12345678901234567890123", "-", "."]) expect(quantityError(ok), ok).toBeUndefined();
    expect(quantityError(1e308)).toBeUndefined();
  });

  it("refuses a malformed text and an unknown suffix in its words", () => {
    for (const bad of ["", "abc", "1x", "1.5.5", "0x10", "1e5k", "1 2"]) expect(quantityError(bad), bad).toBe(formatWrong);
    for (const bad of ["1e", "1mi", "1Kii", "1k5", "--1", "1ee"]) expect(quantityError(bad), bad).toBe("unable to parse quantity's suffix");
    // A bool or an object is parsed as its JSON text, which never matches.
    expect([quantityError(true), quantityError({ a: 1 })]).toEqual([formatWrong, formatWrong]);
  });

  it("reads digitless forms as zero, as ParseQuantity does", () => {
    expect([formatQuantity("-"), formatQuantity("."), compareQuantity("-", "0")]).toEqual(["0", "0", 0]);
  });
});
