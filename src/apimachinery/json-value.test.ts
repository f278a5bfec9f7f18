import { describe, expect, it } from "vitest";
import { deepClone, deepEqual, isPlainObject } from "./json-value.js";

describe("isPlainObject", () => {
  it("is true only for non-null, non-array objects", () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject(null)).toBe(false);
    expect(isPlainObject("x")).toBe(false);
  });
});

describe("deepEqual", () => {
  it("compares scalars, arrays and objects by value, ignoring key order", () => {
    expect(deepEqual({ a: [1, { b: "x" }], c: null }, { c: null, a: [1, { b: "x" }] })).toBe(true);
    expect(deepEqual([1, 2], [2, 1])).toBe(false);
    expect(deepEqual({ a: 1 }, { a: "1" })).toBe(false);
    expect(deepEqual([], {})).toBe(false);
    expect(deepEqual({}, [])).toBe(false);
  });

  it("treats a key holding undefined as absent, and absent as different from null", () => {
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(deepEqual({ a: null }, {})).toBe(false);
    expect(deepEqual({}, { a: null })).toBe(false);
    expect(deepEqual({ a: undefined }, { b: 1 })).toBe(false);
  });

  it("does not take inherited properties for keys", () => {
    expect(deepEqual({ toString: {} }, {})).toBe(false);
    expect(deepEqual({}, { toString: {} })).toBe(false);
  });
});

describe("deepClone", () => {
  it("copies nested objects and arrays so that changing the copy leaves the original", () => {
    const original = { a: [1, { b: "x" }], c: { d: null } };
    const copy = deepClone(original);
    expect(copy).toEqual(original);
    (copy.a[1] as { b: string }).b = "y";
    copy.c.d = 1 as never;
    expect(original).toEqual({ a: [1, { b: "x" }], c: { d: null } });
  });

  it("returns scalars as they are", () => {
    expect(deepClone(3)).toBe(3);
    expect(deepClone(null)).toBe(null);
    expect(deepClone(undefined)).toBe(undefined);
  });
});
