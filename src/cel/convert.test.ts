import { describe, expect, it } from "vitest";
import { celLiteral, fromCel, toCel } from "./convert.js";
import { DoubleType, TimestampType, DurationType, BytesType, listOf, mapOf, StringType } from "./types.js";
import { CelDuration, CelMap, CelOptional, CelTimestamp, CelUint, type CelValue } from "./value.js";
import { typeValues } from "./stdlib/values.js";

describe("toCel", () => {
  const cases: [string, unknown, Parameters<typeof toCel>[1], CelValue][] = [
    ["integer → int", 6, undefined, 6n],
    ["fraction → double", 1.5, undefined, 1.5],
    ["double field keeps whole numbers double", 2, DoubleType, 2],
    ["timestamp", "1970-01-01T00:00:01Z", TimestampType, new CelTimestamp(1_000_000_000n)],
    ["duration", "1m", DurationType, new CelDuration(60_000_000_000n)],
    ["bytes", "AAE=", BytesType, new Uint8Array([0, 1])],
    ["list of doubles", [1, 2], listOf(DoubleType), [1, 2]],
    ["object", { a: 1, b: ["x"] }, undefined, CelMap.fromRecord({ a: 1n, b: ["x"] })],
    ["map", { a: "x" }, mapOf(StringType, StringType), CelMap.fromRecord({ a: "x" })],
  ];
  it.each(cases)("%s", (_n, json, type, want) => expect(toCel(json, type)).toEqual(want));
});

describe("fromCel", () => {
  it.each([
    [6n, 6],
    [new CelUint(3n), 3],
    [new Uint8Array([0, 1]), "AAE="],
    [new CelTimestamp(1_500_000_000n), "1970-01-01T00:00:01.5Z"],
    [new CelDuration(3_723_500_000_000n), "1h2m3.5s"],
    [CelMap.fromRecord({ a: [1n] }), { a: [1] }],
  ] as [CelValue, unknown][])("%s", (v, want) => expect(fromCel(v)).toEqual(want));
});

describe("celLiteral", () => {
  it.each([
    [true, "true"],
    [6n, "6"],
    [new CelUint(6n), "6u"],
    [1.5, "1.5"],
    [2, "2.0"],
    ["te\"xt", '"te\\"xt"'],
    [new Uint8Array([0]), 'b"\\x00"'],
    [[1n, 2n], "[1, 2]"],
    [CelMap.fromRecord({ k: 1n }), '{"k": 1}'],
    [new CelTimestamp(0n), 'timestamp("1970-01-01T00:00:00Z")'],
    [new CelDuration(1_000_000_000n), 'duration("1s")'],
    [CelOptional.of(1n), "optional.of(1)"],
    [CelOptional.none, "optional.none()"],
    [typeValues.int, "int"],
    [null, "null"],
  ] as [CelValue, string][])("%s", (v, want) => expect(celLiteral(v)).toBe(want));
});
