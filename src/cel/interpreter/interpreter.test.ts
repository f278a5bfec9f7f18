import { describe, expect, it } from "vitest";
import type { Expr } from "../ast.js";
import { optionalLibrary, standardLibrary, twoVarComprehensionsLibrary } from "../stdlib/index.js";
import { CelEvalError, CelMap, CelOptional, CelUint, type CelValue } from "../value.js";
import { plan } from "./index.js";
import { all, call, exists, filter, has, ident, lit, list, map, mapMacro, mcall, optList, parsed, sel, transformMap } from "./ast-builder.testkit.js";

const libs = [standardLibrary, optionalLibrary, twoVarComprehensionsLibrary];
const run = (e: Expr, act: Record<string, CelValue> = {}, costLimit?: number) => plan(parsed(e), libs).eval(act, { costLimit });

const obj = CelMap.fromRecord({ name: "app", replicas: 3n, items: [1n, 2n, 3n], labels: CelMap.fromRecord({ tier: "web" }) });

describe("interpreter: values", () => {
  const cases: [string, Expr, CelValue, Record<string, CelValue>?][] = [
    ["int add", call("_+_", lit(1n), lit(2n)), 3n],
    ["heterogeneous ==", call("_==_", lit(1n), lit(1.0)), true],
    ["uint == int", call("_==_", lit(new CelUint(1n)), lit(1n)), true],
    ["list == with doubles", call("_==_", list(lit(1n)), list(lit(1.0))), true],
    ["map keys int/uint", call("_==_", map([lit(1n), lit("a")]), map([lit(new CelUint(1n)), lit("a")])), true],
    ["NaN != NaN", call("_==_", lit(NaN), lit(NaN)), false],
    ["cross-type <", call("_<_", lit(1n), lit(1.5)), true],
    ["select", sel(ident("self"), "name"), "app", { self: obj }],
    ["has present", has(ident("self"), "labels"), true, { self: obj }],
    ["has absent", has(ident("self"), "nope"), false, { self: obj }],
    ["in list", call("@in", lit(2n), sel(ident("self"), "items")), true, { self: obj }],
    ["in map", call("@in", lit("tier"), sel(sel(ident("self"), "labels"), "")), false, { self: CelMap.fromRecord({ labels: CelMap.fromRecord({ "": CelMap.fromRecord({}) }) }) }],
    ["all", all(sel(ident("self"), "items"), "i", call("_>_", ident("i"), lit(0n))), true, { self: obj }],
    ["exists", exists(sel(ident("self"), "items"), "i", call("_==_", ident("i"), lit(3n))), true, { self: obj }],
    ["map macro", mapMacro(list(lit(1n), lit(2n)), "x", call("_*_", ident("x"), lit(2n))), [2n, 4n]],
    ["filter", filter(list(lit(1n), lit(2n), lit(3n)), "x", call("_>_", ident("x"), lit(1n))), [2n, 3n]],
    ["two-var all over list", all(list(lit("a"), lit("b")), "i", call("_<_", ident("i"), lit(2n)), "v"), true],
    ["transformMap", transformMap(map([lit("a"), lit(1n)]), "k", "v", call("_+_", ident("v"), lit(1n))), CelMap.fromRecord({ a: 2n })],
    ["false && error", call("_&&_", lit(false), call("_/_", lit(1n), lit(0n))), false],
    ["error && false", call("_&&_", call("_/_", lit(1n), lit(0n)), lit(false)), false],
    ["error || true", call("_||_", call("_/_", lit(1n), lit(0n)), lit(true)), true],
    ["ternary", call("_?_:_", lit(true), lit(1n), lit(2n)), 1n],
    ["size string code points", call("size", lit("héllo😀")), 6n],
    ["member size", mcall(lit("abc"), "size"), 3n],
    ["string(double)", call("string", lit(1e6)), "1e+06"],
    ["string(1.5)", call("string", lit(1.5)), "1.5"],
    ["int(timestamp)", call("int", call("timestamp", lit("1970-01-01T00:00:10Z"))), 10n],
    ["getHours tz", mcall(call("timestamp", lit("2023-01-01T10:00:00Z")), "getHours", lit("America/Los_Angeles")), 2n],
    ["getHours offset", mcall(call("timestamp", lit("2023-01-01T10:00:00Z")), "getHours", lit("+05:30")), 15n],
    ["string(duration)", call("string", call("duration", lit("1h1.5s"))), "3601.5s"],
    ["optional.of", mcall(call("optional.of", lit(1n)), "value"), 1n],
    ["optional via namespace", mcall(mcall(ident("optional"), "none"), "orValue", lit(5n)), 5n],
    ["opt select missing", mcall(call("_?._", ident("self"), lit("zzz")), "hasValue"), false, { self: obj }],
    ["opt index list", call("_[?_]", list(lit(1n)), lit(3n)), CelOptional.none],
    ["optional list elem", optList([0, 1], call("optional.none"), call("optional.of", lit(2n))), [2n]],
    ["type(1)", call("_==_", call("type", lit(1n)), ident("int")), true],
    ["qualified type name", call("_==_", call("type", call("timestamp", lit(0n))), sel(sel(ident("google"), "protobuf"), "Timestamp")), true],
    ["dotted variable", sel(sel(ident("a"), "b"), "c"), 7n, { "a.b.c": 7n }],
    ["matches", mcall(lit("abc"), "matches", lit("^a.c$")), true],
    ["uint add", call("_+_", lit(new CelUint(1n)), lit(new CelUint(2n))), new CelUint(3n)],
  ];
  it.each(cases)("%s", (_n, e, want, act) => {
    const got = run(e, act).value;
    expect(got).toEqual(want);
  });
});

describe("interpreter: errors with upstream messages", () => {
  const cases: [string, Expr, string, Record<string, CelValue>?][] = [
    ["int overflow", call("_+_", lit(9223372036854775807n), lit(1n)), "integer overflow"],
    ["uint underflow", call("_-_", lit(new CelUint(0n)), lit(new CelUint(1n))), "unsigned integer overflow"],
    ["division by zero", call("_/_", lit(1n), lit(0n)), "division by zero"],
    ["modulus by zero", call("_%_", lit(1n), lit(0n)), "modulus by zero"],
    ["no such key", sel(ident("self"), "missing"), "no such key: missing", { self: obj }],
    ["no such key index", call("_[_]", map([lit("a"), lit(1n)]), lit("b")), "no such key: b"],
    ["index out of bounds", call("_[_]", list(lit(1n)), lit(5n)), "index out of bounds: 5"],
    ["operator mismatch", call("_+_", lit(1n), lit("a")), "no such overload"],
    ["function mismatch", call("int", lit(true)), "no such overload: int(bool)"],
    ["undeclared", ident("nope"), "no such attribute(s): nope"],
    ["none value", mcall(call("optional.none"), "value"), "optional.none() dereference"],
    ["bad timestamp", call("timestamp", lit("2023-13-01T00:00:00Z")), "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ["int(1e99)", call("int", lit(1e99)), "integer overflow"],
    ["uint(-1)", call("uint", lit(-1n)), "unsigned integer overflow"],
    ["repeated key", map([lit(1n), lit(1n)], [lit(new CelUint(1n)), lit(2n)]), "Failed with repeated key"],
    ["bad zone", mcall(call("timestamp", lit(0n)), "getHours", lit("Mars/Base")), "unknown time zone Mars/Base"],
  ];
  it.each(cases)("%s", (_n, e, msg, act) => {
    expect(() => run(e, act)).toThrowError(new CelEvalError(msg));
  });
});

describe("interpreter: runtime cost", () => {
  const cases: [string, Expr, number, Record<string, CelValue>?][] = [
    ["constant", lit(1n), 0],
    ["ident", ident("x"), 1, { x: 1n }],
    ["select chain", sel(sel(ident("self"), "labels"), "tier"), 3, { self: obj }],
    ["call", call("_+_", ident("x"), lit(1n)), 2, { x: 1n }],
    ["list literal", list(lit(1n)), 40],
    ["map literal", map([lit("a"), lit(1n)]), 30],
    ["logical and", call("_&&_", lit(true), lit(false)), 0],
    ["string equality", call("_==_", lit("a".repeat(100)), lit("b".repeat(50))), 5],
    ["startsWith", mcall(lit("a".repeat(30)), "startsWith", lit("a")), 3],
    // all(): per item: ident i (1) + _>_ (1) + && (0) + @not_strictly_false (1) + accu reads (2); + range ident/select (2) + result @result (1)
    ["all", all(sel(ident("self"), "items"), "i", call("_>_", ident("i"), lit(0n))), 2 + 3 * 5 + 1, { self: obj }],
  ];
  it.each(cases)("%s", (_n, e, cost, act) => {
    expect(run(e, act).cost).toBe(cost);
  });

  it("stops a runaway comprehension at the limit", () => {
    const big = Array.from({ length: 10000 }, (_, i) => BigInt(i));
    const e = all(ident("xs"), "i", call("_>=_", ident("i"), lit(0n)));
    expect(() => run(e, { xs: big }, 1000)).toThrowError("operation cancelled: actual cost limit exceeded");
  });

  it("does not absorb the cost limit in &&", () => {
    const e = call("_&&_", call("_==_", ident("x"), lit(1n)), lit(false));
    expect(() => run(e, { x: 1n }, 1)).toThrowError("operation cancelled: actual cost limit exceeded");
  });

  it("plans once, evaluates many times", () => {
    const p = plan(parsed(call("_+_", ident("x"), lit(1n))), libs);
    expect(p.eval({ x: 1n }).value).toBe(2n);
    expect(p.eval({ x: 41n }).value).toBe(42n);
  });
});
