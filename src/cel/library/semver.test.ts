import { describe, expect, it } from "vitest";
import type { CelValue } from "../value.js";
import { callOverload, findOverload } from "./overloads.testkit.js";
import { parseSemver, semverLibrary } from "./semver.js";

const call = (id: string, ...args: CelValue[]) => callOverload(semverLibrary, id, ...args);
const v = (s: string) => parseSemver(s);

describe("kubernetes.Semver", () => {
  it.each([
    ["1.0.0", false, true],
    ["0.1.0-alpha.1", false, true],
    ["1.2.3+build.5", false, true],
    ["hello", false, false],
    ["v1.0", false, false],
    ["v1.0", true, true],
    ["1.0", true, true],
    ["01.01.01", true, true],
    ["01.01.01", false, false],
    ["1-rc", true, false],
  ])("isSemver(%j, %s) = %s", (s, normalize, want) => {
    expect(call(normalize ? "is_semver_string_bool" : "is_semver_string", s, ...(normalize ? [true] : []))).toBe(want);
  });

  it.each([
    ["", "Version string empty"],
    ["1.0", "No Major.Minor.Patch elements found"],
    ["a.0.0", 'Invalid character(s) found in major number "a"'],
    ["01.0.0", 'Major number must not contain leading zeroes "01"'],
    ["1.0.0-01", 'Numeric PreRelease version must not contain leading zeroes "01"'],
    ["1.0.0-", "Prerelease is empty"],
    ["1.0.0+", "Build meta data is empty"],
    ["1..0", 'strconv.ParseUint: parsing "": invalid syntax'],
    ["99999999999999999999.0.0", 'strconv.ParseUint: parsing "99999999999999999999": value out of range'],
  ])("semver(%j) fails: %s", (s, message) => {
    expect(() => call("string_to_semver", s)).toThrow(message);
  });

  it("normalizes", () => {
    expect(call("string_bool_to_semver", "v1.0.0", true)).toEqual(v("1.0.0"));
    expect(v("1.0.0").equals(call("string_bool_to_semver", "01.01", true) as never)).toBe(false);
    expect(v("1.1.0").equals(call("string_bool_to_semver", "01.01", true) as never)).toBe(true);
    expect(() => call("string_bool_to_semver", "1.0-rc", true)).toThrow("short version cannot contain PreRelease/Build meta data");
  });

  it("accessors and ordering", () => {
    expect(call("semver_major", v("1.2.3"))).toBe(1n);
    expect(call("semver_minor", v("1.2.3"))).toBe(2n);
    expect(call("semver_patch", v("1.2.3"))).toBe(3n);
    expect(call("semver_compare_to", v("1.2.3"), v("1.2.3"))).toBe(0n);
    expect(call("semver_compare_to", v("1.2.3"), v("2.0.0"))).toBe(-1n);
    expect(call("semver_compare_to", v("1.2.3"), v("0.1.2"))).toBe(1n);
    expect(call("semver_is_less_than", v("1.0.0-alpha"), v("1.0.0"))).toBe(true);
    expect(call("semver_is_less_than", v("1.0.0-alpha.1"), v("1.0.0-alpha.beta"))).toBe(true);
    expect(call("semver_is_greater_than", v("1.0.0-rc.1"), v("1.0.0-beta.11"))).toBe(true);
    expect(v("1.0.0+a").equals(v("1.0.0+b"))).toBe(true);
  });

  it("costs", () => {
    expect(findOverload(semverLibrary, "string_to_semver").cost!.actual!(["1.2.3-alpha"], null)).toBe(2);
    expect(findOverload(semverLibrary, "semver_major").cost!.actual!([], null)).toBe(1);
  });
});
