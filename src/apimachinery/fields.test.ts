import { describe, expect, it } from "vitest";
import {
  FieldSelector,
  SelectorParseError,
  escapeFieldValue,
  parseFieldSelector,
  unescapeFieldValue,
  unsupportedFieldError,
} from "./fields.js";

function err(s: string): string {
  try {
    parseFieldSelector(s);
  } catch (e) {
    expect(e).toBeInstanceOf(SelectorParseError);
    return (e as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(s)} to fail`);
}

describe("parseFieldSelector", () => {
  it.each<[string, string]>([
    ["", ""],
    ["a=b", "a=b"],
    ["a==b", "a=b"],
    ["a!=b", "a!=b"],
    ["x=a,y=b,z=c", "x=a,y=b,z=c"],
    ["z=c,x=a", "x=a,z=c"],
    ["x=", "x="],
    ["x=a,", "x=a"],
    [",,x=a", "x=a"],
    ["=", ""],
    ["==", ""],
    ["metadata.name=foo,metadata.namespace!=bar", "metadata.name=foo,metadata.namespace!=bar"],
    ["a=x\\,y", "a=x\\,y"],
    ["a=x\\=y", "a=x\\=y"],
    ["a=x\\\\y", "a=x\\\\y"],
  ])("%j → %j", (s, out) => {
    expect(parseFieldSelector(s).toString()).toBe(out);
  });

  it("keeps whitespace and splits at the first operator", () => {
    expect(parseFieldSelector("a = b").requirements()).toEqual([{ field: "a ", operator: "=", value: " b" }]);
    expect(parseFieldSelector("a!=\\=b").requirements()).toEqual([{ field: "a", operator: "!=", value: "=b" }]);
    expect(parseFieldSelector("a.b=c!d").requirements()).toEqual([{ field: "a.b", operator: "=", value: "c!d" }]);
  });

  it("requirements", () => {
    expect(parseFieldSelector("spec.nodeName==n1,status.phase!=Running,metadata.name=x\\,y").requirements()).toEqual([
      { field: "metadata.name", operator: "=", value: "x,y" },
      { field: "spec.nodeName", operator: "=", value: "n1" },
      { field: "status.phase", operator: "!=", value: "Running" },
    ]);
  });

  it.each<[string, string]>([
    ["a", "invalid selector: 'a'; can't understand 'a'"],
    ["x=a,b", "invalid selector: 'x=a,b'; can't understand 'b'"],
    ["a=b=c", "invalid field selector: unescaped character in value: 61"],
    ["a==b=", "invalid field selector: unescaped character in value: 61"],
    ["a!==b", "invalid field selector: unescaped character in value: 61"],
    ["a=b\\", "invalid field selector: invalid escape sequence: \\"],
    ["a=b\\x", "invalid field selector: invalid escape sequence: \\x"],
    ["a<b", "invalid selector: 'a<b'; can't understand 'a<b'"],
    ["a in (b)", "invalid selector: 'a in (b)'; can't understand 'a in (b)'"],
  ])("%j fails", (s, msg) => {
    expect(err(s)).toBe(msg);
  });

  it("reports unescape errors of later terms too", () => {
    expect(err("a=b,=\\q")).toBe("invalid field selector: invalid escape sequence: \\q");
  });
});

describe("FieldSelector", () => {
  it("matches", () => {
    const s = parseFieldSelector("metadata.name=foo,status.phase!=Running");
    expect(s.matches({ "metadata.name": "foo", "status.phase": "Pending" })).toBe(true);
    expect(s.matches({ "metadata.name": "foo" })).toBe(true);
    expect(s.matches({ "metadata.name": "foo", "status.phase": "Running" })).toBe(false);
    expect(s.matches({ "metadata.name": "bar" })).toBe(false);
    // a missing field reads as ""
    expect(parseFieldSelector("spec.nodeName=").matches({})).toBe(true);
    expect(parseFieldSelector("spec.nodeName!=").matches({})).toBe(false);
    expect(parseFieldSelector("toString=").matches({})).toBe(true);
  });

  it("isEmpty / everything / requiresExactMatch", () => {
    expect(parseFieldSelector("").isEmpty()).toBe(true);
    expect(parseFieldSelector(",").isEmpty()).toBe(true);
    expect(parseFieldSelector("=").isEmpty()).toBe(true);
    expect(parseFieldSelector("a=b").isEmpty()).toBe(false);
    expect(FieldSelector.everything().matches({ a: "b" })).toBe(true);
    const s = parseFieldSelector("a!=x,b=y");
    expect(s.requiresExactMatch("b")).toBe("y");
    expect(s.requiresExactMatch("a")).toBeUndefined();
  });

  it("escape/unescape", () => {
    expect(escapeFieldValue("a\\b,c=d")).toBe("a\\\\b\\,c\\=d");
    expect(unescapeFieldValue("a\\\\b\\,c\\=d")).toBe("a\\b,c=d");
    expect(unescapeFieldValue("plain")).toBe("plain");
    expect(() => unescapeFieldValue("a,b")).toThrow("invalid field selector: unescaped character in value: 44");
  });

  it("unsupportedFieldError", () => {
    expect(unsupportedFieldError("spec.foo")).toBe("field label not supported: spec.foo");
  });
});
