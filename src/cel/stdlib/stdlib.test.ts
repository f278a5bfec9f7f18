import { describe, expect, it } from "vitest";
import { parse } from "../parser/index.js";
import { plan } from "../interpreter/index.js";
import { CelEvalError, type CelValue } from "../value.js";
import { optionalLibrary, standardLibrary, twoVarComprehensionsLibrary } from "./index.js";
import { formatDouble } from "./standard.js";

const libs = [standardLibrary, optionalLibrary, twoVarComprehensionsLibrary];
const ev = (text: string, act: Record<string, CelValue> = {}) => plan(parse(text), libs).eval(act).value;

describe("standard library declarations", () => {
  const ids = new Set(standardLibrary.functions.flatMap((f) => f.overloads.map((o) => o.id)));
  it.each([
    "add_int64", "add_uint64", "add_double", "add_string", "add_bytes", "add_list", "add_timestamp_duration",
    "size_string", "string_size", "contains_string", "matches_string", "timestamp_to_hours_with_tz",
    "int64_to_string", "timestamp_to_seconds_tz", "less_int64_uint64", "in_list", "index_map", "to_dyn",
  ])("declares %s", (id) => expect(ids.has(id)).toBe(true));
  it("has unique overload ids", () => {
    const all = standardLibrary.functions.flatMap((f) => f.overloads.map((o) => o.id));
    expect(new Set(all).size).toBe(all.length);
  });
});

describe("standard library semantics", () => {
  const cases: [string, CelValue][] = [
    ["'abc'.startsWith('ab') && 'abc'.endsWith('bc') && 'abc'.contains('b')", true],
    ["'hello'.matches('l+')", true],
    ["string(123456.0)", "123456"],
    ["string(1234567.0)", "1.234567e+06"],
    ["string(0.0001)", "0.0001"],
    ["string(0.00001)", "1e-05"],
    ["string(timestamp('2009-02-13T23:31:30.120Z'))", "2009-02-13T23:31:30.12Z"],
    ["string(duration('-1.5ms'))", "-0.0015s"],
    ["timestamp('2023-03-01T00:00:00Z').getDayOfYear()", 59n],
    ["timestamp('2023-03-05T00:00:00Z').getDayOfWeek()", 0n],
    ["timestamp('2023-01-01T00:30:00Z').getDate('-01:00')", 31n],
    ["duration('90m').getHours()", 1n],
    ["duration('1.5s').getMilliseconds()", 500n],
    ["timestamp('2023-01-01T00:00:00Z') - timestamp('2022-12-31T00:00:00Z') == duration('24h')", true],
    ["bool('TRUE') && !bool('f')", true],
    ["double('-inf') < 0.0", true],
    ["uint('42') == 42u", true],
    ["optional.ofNonZeroValue(0).hasValue()", false],
    ["[1, 2].transformList(i, v, v * i)", [0n, 2n]],
  ];
  it.each(cases)("%s", (text, want) => expect(ev(text)).toEqual(want));

  const errors: [string, string][] = [
    ["-(-9223372036854775807 - 1)", "integer overflow"],
    ["int('9223372036854775808')", "type conversion error from 'string' to 'int'"],
    ["bool('yes')", "type conversion error from 'string' to 'bool'"],
    ["duration('1d')", "type conversion error from 'string' to 'google.protobuf.Duration'"],
    ["timestamp('10000-01-01T00:00:00Z')", "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ["timestamp('9999-12-31T23:59:59Z') + duration('1s')", "timestamp overflow"],
    ["string(b'\\xff')", "invalid UTF-8 in bytes, cannot convert to string"],
    ["'a'.matches('(')", "error parsing regexp: missing closing ): `(`"],
    ["{'a': 1}.transformMap(k, v, v)['b']", "no such key: b"],
  ];
  it.each(errors)("%s", (text, msg) => expect(() => ev(text)).toThrowError(new CelEvalError(msg)));

  it("formats doubles as Go's %g", () => {
    expect([1e21, -0.5, NaN, Infinity, 100].map(formatDouble)).toEqual(["1e+21", "-0.5", "NaN", "+Inf", "100"]);
  });
});
