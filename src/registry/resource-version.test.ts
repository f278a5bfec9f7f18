import { describe, expect, it } from "vitest";
import { parseResourceVersion } from "./resource-version.js";

describe("parseResourceVersion", () => {
  it("reads unsigned 64-bit decimals, and refuses what strconv.ParseUint refuses as an invalid resourceVersion", () => {
    expect(parseResourceVersion("")).toBeUndefined();
    expect(parseResourceVersion("205")).toBe(205);
    expect(parseResourceVersion("18446744073709551615")).toBeGreaterThan(2 ** 63);
    for (const bad of ["abc", "-1", "1.5", "18446744073709551616", "99999999999999999999"]) {
      expect(() => parseResourceVersion(bad), bad).toThrow(`invalid resourceVersion: "${bad}"`);
    }
  });
});
