import { describe, expect, it } from "vitest";
import { cannotUnmarshal, compareStrings, goJSON, goJSONString, goUnmarshalMapError, jsonKindWord } from "./go-json.js";

describe("goJSON (json.Marshal of a decoded value)", () => {
  it("sorts map keys in byte order and leaves undefined members out", () => {
    expect(goJSON({ b: 1, a: [true, null], c: undefined, "é": "x", z: "y" })).toBe('{"a":[true,null],"b":1,"z":"y","é":"x"}');
  });

  it("renders scalars as Go does", () => {
    expect(goJSON(null)).toBe("null");
    expect(goJSON(undefined)).toBe("null");
    expect(goJSON(1.5)).toBe("1.5");
    expect(goJSON(Number.NaN)).toBe("null");
    expect(goJSON(10n)).toBe("10");
    expect(goJSON(false)).toBe("false");
  });
});

describe("goJSONString", () => {
  it("escapes HTML characters and U+2028/U+2029 as \\u00XX", () => {
    expect(goJSONString("<a&b>\u2028\u2029")).toBe('"\\u003ca\\u0026b\\u003e\\u2028\\u2029"');
  });

  it("writes \\b \\f \\n \\r \\t short and other control characters as \\u00XX", () => {
    expect(goJSONString('\b\f\n\r\t\u0001"\\')).toBe('"\\b\\f\\n\\r\\t\\u0001\\"\\\\"');
  });

  it("replaces a lone surrogate (invalid UTF-8 to Go) by \\ufffd and keeps pairs", () => {
    expect(goJSONString("a\ud800b")).toBe('"a\\ufffdb"');
    expect(goJSONString("😀")).toBe('"😀"');
  });
});

describe("compareStrings (Go's strings.Compare)", () => {
  it("orders by UTF-8 bytes, not UTF-16 code units", () => {
    expect(compareStrings("a", "b")).toBe(-1);
    expect(compareStrings("b", "a")).toBe(1);
    expect(compareStrings("x", "x")).toBe(0);
    expect(compareStrings("\ue000", "😀")).toBe(-1); // UTF-16 would put the surrogate pair first
  });

  it("orders prefixes first and decides at the first difference, whatever comes after it", () => {
    expect(compareStrings("ab", "abc")).toBe(-1);
    expect(compareStrings("abc", "ab")).toBe(1);
    expect(compareStrings("a😀", "a\uffff")).toBe(1);
    expect(compareStrings("aé😀", "aé\ue000")).toBe(1);
    expect(compareStrings("a😀", "b")).toBe(-1);
    expect(compareStrings("é", "z")).toBe(1);
    expect(compareStrings("😀", "😁")).toBe(-1);
  });
});

describe("json.Unmarshal errors", () => {
  it("names a value's kind with Go's words", () => {
    expect([[], null, true, {}, "s", 1].map(jsonKindWord)).toEqual(["array", "null", "bool", "object", "string", "number"]);
    expect(cannotUnmarshal([], "jsonpatch.Operation")).toBe("json: cannot unmarshal array into Go value of type jsonpatch.Operation");
  });

  // Syntax errors themselves: go-json-syntax.test.ts.
  it("takes into a map only objects and null", () => {
    expect(goUnmarshalMapError("null")).toBeUndefined();
    expect(goUnmarshalMapError('{"a":1}')).toBeUndefined();
    expect(goUnmarshalMapError("[1]")).toBe("json: cannot unmarshal array into Go value of type map[string]interface {}");
    expect(goUnmarshalMapError("{")).toBe("unexpected end of JSON input");
  });
});
