import { describe, expect, it } from "vitest";
import { formatQuantity, formatQuantityPtr } from "./quantity.js";

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
});
