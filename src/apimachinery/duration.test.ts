import { describe, expect, it } from "vitest";
import { DurationError, parseGoDuration } from "./duration.js";

describe("parseGoDuration", () => {
  it("reads Go's forms, in milliseconds", () => {
    expect(parseGoDuration("1m0s")).toBe(60_000);
    expect(parseGoDuration("1s")).toBe(1000);
    expect(parseGoDuration("1.5h")).toBe(5_400_000);
    expect(parseGoDuration("300ms")).toBe(300);
    expect(parseGoDuration("2m30s")).toBe(150_000);
    expect(parseGoDuration("1500us")).toBe(1.5);
    expect(parseGoDuration("1µs")).toBe(0.001);
    expect(parseGoDuration(".5s")).toBe(500);
    expect(parseGoDuration("5.s")).toBe(5000);
    expect(parseGoDuration("-2s")).toBe(-2000);
    expect(parseGoDuration("+2s")).toBe(2000);
    expect(parseGoDuration("0")).toBe(0);
    expect(parseGoDuration("-0")).toBe(0);
  });

  it("refuses what Go refuses, in Go's words", () => {
    const cases: [string, string][] = [
      ["", 'time: invalid duration ""'],
      ["abc", 'time: invalid duration "abc"'],
      ["1", 'time: missing unit in duration "1"'],
      ["10", 'time: missing unit in duration "10"'],
      ["1x", 'time: unknown unit "x" in duration "1x"'],
      ["1sec", 'time: unknown unit "sec" in duration "1sec"'],
      ["1s2", 'time: missing unit in duration "1s2"'],
      [".s", 'time: invalid duration ".s"'],
      ["-", 'time: invalid duration "-"'],
      ["s", 'time: invalid duration "s"'],
      ["9999999999h", 'time: invalid duration "9999999999h"'],
    ];
    for (const [input, message] of cases) {
      expect(() => parseGoDuration(input), input).toThrow(DurationError);
      expect(() => parseGoDuration(input), input).toThrow(message);
    }
  });
});
