import { describe, expect, it } from "vitest";
import { IntType, StringType, listOf } from "../types.js";
import { CelDuration, CelMap, CelTimestamp, CelTypeValue, CelUint, type CelValue } from "../value.js";
import { stringsLibrary } from "./strings.js";
import { validateFormatCall } from "./strings-format.js";
import { actualCost, arg, caller, estimateCost } from "./overloads.testkit.js";
import { formatType } from "../types.js";

const call = caller(stringsLibrary);
const u = (n: number) => new CelUint(BigInt(n));

// Cases from cel-go ext/strings_test.go (version 2 functions).
describe("cel.lib.ext.strings", () => {
  it.each<[string, CelValue[], CelValue]>([
    ["string_char_at_int", ["tacocat", 3n], "o"],
    ["string_char_at_int", ["tacocat", 7n], ""],
    ["string_char_at_int", ["©αT", 1n], "α"],
    ["string_char_at_int", ["a😀b", 2n], "b"],
    ["string_index_of_string", ["tacocat", ""], 0n],
    ["string_index_of_string", ["tacocat", "ac"], 1n],
    ["string_index_of_string", ["tacocat", "none"], -1n],
    ["string_index_of_string_int", ["tacocat", "", 3n], 3n],
    ["string_index_of_string_int", ["tacocat", "a", 3n], 5n],
    ["string_index_of_string_int", ["tacocat", "at", 3n], 5n],
    ["string_index_of_string_int", ["ta©o©αT", "©", 3n], 4n],
    ["string_index_of_string_int", ["ta😀o😀αT", "😀", 3n], 4n],
    ["string_index_of_string_int", ["hello", "l", 9n], -1n],
    ["string_last_index_of_string", ["tacocat", ""], 7n],
    ["string_last_index_of_string", ["tacocat", "at"], 5n],
    ["string_last_index_of_string", ["tacocat", "none"], -1n],
    ["string_last_index_of_string_int", ["tacocat", "", 3n], 3n],
    ["string_last_index_of_string_int", ["tacocat", "a", 3n], 1n],
    ["string_last_index_of_string_int", ["ta©o©αT", "©", 3n], 2n],
    ["string_last_index_of_string", ["a😀b😀", "😀"], 3n],
    ["string_lower_ascii", ["TacoCat"], "tacocat"],
    ["string_lower_ascii", ["TacoCÆt Xii"], "tacocÆt xii"],
    ["string_upper_ascii", ["tacoCat"], "TACOCAT"],
    ["string_upper_ascii", ["tacoCαt"], "TACOCαT"],
    ["string_replace_string_string", ["12 days 12 hours", "{0}", "2"], "12 days 12 hours"],
    ["string_replace_string_string", ["{0} days {0} hours", "{0}", "2"], "2 days 2 hours"],
    ["string_replace_string_string_int", ["{0} days {0} hours", "{0}", "2", 1n], "2 days {0} hours"],
    ["string_replace_string_string_int", ["{0} days {0} hours", "{0}", "2", -1n], "2 days 2 hours"],
    ["string_replace_string_string_int", ["{0} days {0} hours", "{0}", "2", 0n], "{0} days {0} hours"],
    ["string_replace_string_string", ["abc", "", "x"], "xaxbxcx"],
    ["string_replace_string_string_int", ["abc", "", "x", 2n], "xaxbc"],
    ["string_split_string", ["hello world", " "], ["hello", "world"]],
    ["string_split_string_int", ["hello world events!", " ", 0n], []],
    ["string_split_string_int", ["hello world events!", " ", 1n], ["hello world events!"]],
    ["string_split_string_int", ["hello world events!", " ", 2n], ["hello", "world events!"]],
    ["string_split_string_int", ["hello world events!", " ", -1n], ["hello", "world", "events!"]],
    ["string_split_string", ["abc", ""], ["a", "b", "c"]],
    ["string_split_string", ["", ""], []],
    ["string_split_string", ["", ","], [""]],
    ["string_split_string_int", ["abcd", "", 2n], ["a", "bcd"]],
    ["string_substring_int", ["tacocat", 4n], "cat"],
    ["string_substring_int", ["tacocat", 7n], ""],
    ["string_substring_int_int", ["tacocat", 0n, 4n], "taco"],
    ["string_substring_int_int", ["tacocat", 4n, 4n], ""],
    ["string_substring_int_int", ["ta©o©αT", 2n, 6n], "©o©α"],
    ["string_trim", [" \f\n\r\t\vtext  "], "text"],
    ["string_trim", ["\u0085\u00a0\u1680text"], "text"],
    ["string_trim", ["\u2000\u2001\u2002\u2003\u2004\u2004\u2006\u2007\u2008\u2009text\u200a\u2028\u2029\u202F\u205F\u3000"], "text"],
    ["string_trim", ["\u180etext\u200b\u200c\u200d\u2060\ufeff"], "\u180etext\u200b\u200c\u200d\u2060\ufeff"],
    ["list_join", [["x", "y"]], "xy"],
    ["list_join_string", [["x", "y"], "-"], "x-y"],
    ["list_join_string", [[], "-"], ""],
    ["strings_quote", ['first\nsecond'], '"first\\nsecond"'],
    ["strings_quote", ["bell\u0007"], '"bell\\a"'],
    ["strings_quote", ['ends with \\'], '"ends with \\\\"'],
    ["strings_quote", ['"quoted"'], '"\\"quoted\\""'],
    ["strings_quote", ["printable unicode😀"], '"printable unicode😀"'],
    ["strings_quote", ["\u0001"], '"\u0001"'],
  ])("%s #%#", (id, args, want) => {
    expect(call(id, ...args)).toEqual(want);
  });

  it.each<[string, CelValue[], string]>([
    ["string_char_at_int", ["tacocat", 30n], "index out of range: 30"],
    ["string_char_at_int", ["tacocat", -1n], "index out of range: -1"],
    ["string_index_of_string_int", ["tacocat", "a", 30n], "NOT AN ERROR"],
    ["string_index_of_string_int", ["tacocat", "a", -1n], "index out of range: -1"],
    ["string_last_index_of_string_int", ["tacocat", "a", -1n], "index out of range: -1"],
    ["string_substring_int", ["tacocat", 40n], "index out of range: 40"],
    ["string_substring_int", ["tacocat", -1n], "index out of range: -1"],
    ["string_substring_int_int", ["tacocat", 1n, 50n], "index out of range: 50"],
    ["string_substring_int_int", ["tacocat", 49n, 50n], "index out of range: 49"],
    ["string_substring_int_int", ["tacocat", 4n, 3n], "invalid substring range. start: 4, end: 3"],
    ["list_join", [["x", 1n]], "join: invalid input: 1"],
  ])("%s #%# fails: %s", (id, args, message) => {
    if (message === "NOT AN ERROR") expect(call(id, ...args)).toBe(-1n);
    else expect(() => call(id, ...args)).toThrow(message);
  });

  it("costs as Kubernetes' estimator", () => {
    const s21 = "ABCDEFGHIJ abcdefghij";
    expect(actualCost(stringsLibrary, "string_lower_ascii", [s21], "")).toBe(3);
    expect(estimateCost(stringsLibrary, "string_lower_ascii", [arg(StringType, 21)])).toEqual({ cost: { min: 3, max: 3 }, resultSize: { min: 21, max: 21 } });
    expect(actualCost(stringsLibrary, "string_replace_string_string", ["abc 123 def 123", "123", "456"], "")).toBe(3);
    expect(estimateCost(stringsLibrary, "string_split_string_int", [arg(StringType, 15), arg(StringType, 1), arg(IntType, 1, 1, 1n)])).toEqual({
      cost: { min: 3, max: 3 },
      resultSize: { min: 0, max: 1 },
    });
    expect(actualCost(stringsLibrary, "string_substring_int", ["abc 123 def 123", 5n], "")).toBe(2);
    // join: two traversals of the result
    expect(actualCost(stringsLibrary, "list_join_string", [[], " "], "aa bb cc d e f g h i j")).toBe(5);
    expect(estimateCost(stringsLibrary, "list_join_string", [arg(listOf({ kind: "string", minSize: 1, maxSize: 2 }), 10), arg(StringType, 1)])).toEqual({
      cost: { min: 2, max: 3 },
      resultSize: { min: 19, max: 29 },
    });
    // indexOf on a string: one traversal (library/cost.go)
    expect(actualCost(stringsLibrary, "string_index_of_string", ["0123456789".repeat(5), "123"], 1n)).toBe(5);
    expect(estimateCost(stringsLibrary, "string_index_of_string", [arg(StringType, 50), arg(StringType, 3)])?.cost).toEqual({ min: 5, max: 5 });
    // replace('', 'x') on 15 characters: the result is at most 16 × 1 + 15
    expect(estimateCost(stringsLibrary, "string_replace_string_string", [arg(StringType, 15), arg(StringType, 0), arg(StringType, 1)])).toEqual({
      cost: { min: 3, max: 3 },
      resultSize: { min: 31, max: 31 },
    });
  });
});

// Cases from cel-go ext/formatting_test.go (locale en_US).
describe("format", () => {
  const fmt = (f: string, ...args: CelValue[]) => call("string_format", f, args);
  const ts = new CelTimestamp(1675467080n * 1_000_000_000n);
  it.each<[string, CelValue[], string]>([
    ["no substitution", [], "no substitution"],
    ["str is %s and some more", ["filler"], "str is filler and some more"],
    ["%% and also %%", [], "% and also %"],
    ["%%%s%%", ["text"], "%text%"],
    ["%d %d %d, %s %s %s", [1n, 2n, 3n, "A", "B", "C"], "1 2 3, A B C"],
    ["%.3f", [1.2345], "1.234"],
    ["%.2f", [0.125], "0.12"],
    ["%.2f", [1234567.891], "1,234,567.89"],
    ["this is 5 in binary: %b", [5n], "this is 5 in binary: 101"],
    ["%b", [-5n], "-101"],
    ["%b", [u(64)], "1000000"],
    ["%b", [true], "1"],
    ["%o", [11n], "13"],
    ["%o", [-11n], "-13"],
    ["%o", [u(65535)], "177777"],
    ["%x", [30n], "1e"],
    ["%X", [30n], "1E"],
    ["%x", [-30n], "-1e"],
    ["%X", [u(6000)], "1770"],
    ["%x", ["Hello world!"], "48656c6c6f20776f726c6421"],
    ["%X", ["Hello world!"], "48656C6C6F20776F726C6421"],
    ["%x", [new TextEncoder().encode("\u0000\u0000byte string\u0000")], "00006279746520737472696e6700"],
    ["%.6e", [1052.032911275], "1.052033\u202f\u00d7\u202f10\u2070\u00b3"],
    ["%e", [2.71828], "2.718280\u202f\u00d7\u202f10\u2070\u2070"],
    ["%e", [0.000000002], "2.000000\u202f\u00d7\u202f10⁻⁰⁹"],
    ["%f", [2.71828], "2.718280"],
    ["%s", [2.71], "2.71"],
    ["%s", [[2.71]], "[2.710000]"],
    ["%s", [0.000000002], "2e-09"],
    ["%s", [1000000.0], "1e+06"],
    ["%s", [[0.000000002]], "[0.000000]"],
    ["%f", ["NaN"], "NaN"],
    ["%f", ["Infinity"], "∞"],
    ["%f", ["-Infinity"], "-∞"],
    ["%s", [NaN], "NaN"],
    ["%s", [Infinity], "+Inf"],
    ["%s", [[NaN, Infinity, -Infinity]], '["NaN", "+Inf", "-Inf"]'],
    ["%d", [u(64)], "64"],
    ["null: %s", [null], "null: null"],
    ["%s", [999999999999n], "999999999999"],
    ["some bytes: %s", [new TextEncoder().encode("xyz")], "some bytes: xyz"],
    ["type is %s", [new CelTypeValue(StringType)], "type is string"],
    ["%s", [ts], "2023-02-03T23:31:20Z"],
    ["%s", [new CelDuration(6347n * 1_000_000_000n)], "6347s"],
    ["%s", [new CelDuration(2n)], "0.000000002s"],
    ["%s", [["abc", 3.14, null, [9n, 8n, 7n, 6n], ts]], '["abc", 3.140000, null, [9, 8, 7, 6], timestamp("2023-02-03T23:31:20Z")]'],
    [
      "%s",
      [CelMap.fromRecord({ key1: new TextEncoder().encode("xyz"), key5: null, key2: new CelDuration(7200n * 1_000_000_000n), key4: true, key3: 2.71828 })],
      '{"key1":b"xyz", "key2":duration("7200s"), "key3":2.718280, "key4":true, "key5":null}',
    ],
    ["%s", [CelMap.fromEntries([[1n, "value1"], [u(2), "value2"], [true, NaN]])], '{1:"value1", 2:"value2", true:"NaN"}'],
    ["true bool: %s, false bool: %s", [true, false], "true bool: true, false bool: false"],
    ["%.1f", [1.0], "1.0"],
  ])("%s #%#", (f, args, want) => {
    expect(fmt(f, ...args)).toBe(want);
  });

  it.each<[string, CelValue[], string]>([
    ["%a", [1n], 'could not parse formatting clause: unrecognized formatting clause "a"'],
    ["%d %d %d", [0n, 1n], "index 2 out of range"],
    ["string is %b", ["abc"], "error during formatting: only integers and bools can be formatted as binary, was given string"],
    ["%d", [new CelDuration(1n)], "error during formatting: decimal clause can only be used on integers, was given google.protobuf.Duration"],
    ["octal: %o", ["a string"], "error during formatting: octal clause can only be used on integers, was given string"],
    ["double is %x", [0.5], "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double"],
    ["double is %E", [0.5], 'could not parse formatting clause: unrecognized formatting clause "E"'],
    ["null: %d", [null], "error during formatting: decimal clause can only be used on integers, was given null_type"],
    ["null: %e", [null], "error during formatting: scientific clause can only be used on doubles, was given null_type"],
    ["null: %f", [null], "error during formatting: fixed-point clause can only be used on doubles, was given null_type"],
    ["%s %s", ["abc"], "index 1 out of range"],
    ["filler %", ["x"], "unexpected end of string"],
    ["filler %", [], "index 0 out of range"],
    ["double is %.34", [5.0], "could not parse formatting clause: error while parsing precision: could not find end of precision specifier"],
  ])("%s #%# fails: %s", (f, args, message) => {
    expect(() => fmt(f, ...args)).toThrow(message);
  });

  it("validates constant calls at compile time", () => {
    expect(validateFormatCall("%s %s", [StringType, StringType, StringType], formatType)?.message).toBe(
      "too many arguments supplied to string.format (expected 2, got 3)",
    );
    expect(validateFormatCall("filler %", [], formatType)?.message).toBe("unexpected end of string");
    expect(validateFormatCall("int is %d", [{ kind: "double" }], formatType)).toEqual({
      message: "error during formatting: decimal clause can only be used on integers, was given double",
      argIndex: 0,
    });
    expect(validateFormatCall("%s", [{ kind: "dyn" }], formatType)).toBeUndefined();
  });
});
