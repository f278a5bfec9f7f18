import { describe, expect, it } from "vitest";
import type { Expr } from "../ast.js";
import { CelCompileError } from "../source.js";
import { optionalLibrary, standardLibrary } from "../stdlib/index.js";
import {
  BoolType,
  DoubleType,
  DynType,
  IntType,
  StringType,
  formatType,
  listOf,
  mapOf,
  optionalOf,
  type CelType,
  type ObjectType,
} from "../types.js";
import { CelUint } from "../value.js";
import { check, createCheckerEnv, type CheckerEnvOptions } from "./index.js";
import { formatCheckerType } from "./types.js";
import { AstBuilder } from "./ast-builder.testkit.js";

// Schema-made object types (escaped property names), as src/cel/schema produces them.
const obj = (name: string, fields: Record<string, CelType>, required: string[] = []): ObjectType => ({
  kind: "object",
  name,
  escapedFieldNames: true,
  fields: new Map(Object.entries(fields).map(([k, type]) => [k, { type, required: required.includes(k) }])),
});

const item = obj("selfType.spec.items.@idx", { name: StringType });
const spec = obj("selfType.spec", { replicas: IntType, "x-y": StringType, namespace: StringType, items: listOf(item), labels: mapOf(StringType, StringType) });
const selfType = obj("selfType", { spec, kind: StringType });

const variables: Record<string, CelType> = {
  x: IntType,
  s: StringType,
  l: listOf(IntType),
  m: mapOf(StringType, IntType),
  d: DynType,
  self: selfType,
  opt: optionalOf(IntType),
};
const env = createCheckerEnv({ variables, libraries: [standardLibrary, optionalLibrary] });

type Build = (b: AstBuilder) => Expr;

function run(build: Build, e = env) {
  const b = new AstBuilder();
  return check(b.parsed(build(b)), e);
}

function errors(build: Build, e = env): string[] {
  try {
    run(build, e);
  } catch (err) {
    if (err instanceof CelCompileError) return err.issues.map((i) => i.message);
    throw err;
  }
  return [];
}

const result = (build: Build, e = env) => formatCheckerType(run(build, e).resultType);

describe("checker: result types", () => {
  const cases: [string, Build, string][] = [
    ["int literal", (b) => b.c(1n), "int"],
    ["uint literal", (b) => b.c(new CelUint(1n)), "uint"],
    ["null literal", (b) => b.c(null), "null"],
    ["bytes literal", (b) => b.c(new Uint8Array()), "bytes"],
    ["variable", (b) => b.i("s"), "string"],
    ["int + int", (b) => b.call("_+_", [b.i("x"), b.c(1n)]), "int"],
    ["dyn + int", (b) => b.call("_+_", [b.i("d"), b.c(1n)]), "int"],
    ["dyn + dyn", (b) => b.call("_+_", [b.i("d"), b.i("d")]), "dyn"],
    ["list + list", (b) => b.call("_+_", [b.i("l"), b.list([b.c(2n)])]), "list(int)"],
    ["cross-type comparison", (b) => b.call("_<_", [b.i("x"), b.c(1.5)]), "bool"],
    ["size member", (b) => b.member(b.i("s"), "size", []), "int"],
    ["index list", (b) => b.call("_[_]", [b.i("l"), b.c(0n)]), "int"],
    ["index map", (b) => b.call("_[_]", [b.i("m"), b.c("k")]), "int"],
    ["map select", (b) => b.sel(b.i("m"), "k"), "int"],
    ["dyn select", (b) => b.sel(b.i("d"), "k"), "dyn"],
    ["object field", (b) => b.path("self.spec.replicas"), "int"],
    ["escaped field", (b) => b.sel(b.path("self.spec"), "x__dash__y"), "string"],
    ["keyword field", (b) => b.sel(b.path("self.spec"), "__namespace__"), "string"],
    ["has() on object", (b) => b.has(b.path("self.spec"), "replicas"), "bool"],
    ["has() on map", (b) => b.has(b.i("m"), "k"), "bool"],
    ["ternary", (b) => b.call("_?_:_", [b.c(true), b.c(1n), b.c(2n)]), "int"],
    ["ternary int/dyn", (b) => b.call("_?_:_", [b.c(true), b.c(1n), b.i("d")]), "dyn"],
    // cel-go keeps the first binding when null and an object unify (mostGeneral(obj, null) = null).
    ["ternary null/obj", (b) => b.call("_?_:_", [b.c(true), b.c(null), b.path("self.spec")]), "null"],
    ["ternary obj/null", (b) => b.call("_?_:_", [b.c(true), b.path("self.spec"), b.c(null)]), "selfType.spec"],
    ["in list", (b) => b.call("@in", [b.c(1n), b.i("l")]), "bool"],
    ["type()", (b) => b.call("type", [b.i("x")]), "type(int)"],
    ["type ident", (b) => b.i("int"), "type(int)"],
    ["type() == int", (b) => b.call("_==_", [b.call("type", [b.i("d")]), b.i("int")]), "bool"],
    ["qualified constant", (b) => b.path("google.protobuf.Timestamp"), "type(timestamp)"],
    ["empty list", (b) => b.list([]), "list(dyn)"],
    ["empty map", (b) => b.map([]), "map(dyn, dyn)"],
    ["list literal", (b) => b.list([b.c(1n), b.c(2n)]), "list(int)"],
    ["map literal", (b) => b.map([[b.c("a"), b.c(1n)]]), "map(string, int)"],
    ["optional.none()", (b) => b.member(b.i("optional"), "none", []), "optional_type(dyn)"],
    ["optional.of(1)", (b) => b.member(b.i("optional"), "of", [b.c(1n)]), "optional_type(int)"],
    ["opt.orValue(1)", (b) => b.member(b.i("opt"), "orValue", [b.c(2n)]), "int"],
    ["opt select on object", (b) => b.call("_?._", [b.path("self.spec"), b.c("replicas")]), "optional_type(int)"],
    ["opt select chained", (b) => b.sel(b.call("_?._", [b.i("self"), b.c("spec")]), "replicas"), "optional_type(int)"],
    ["opt index map", (b) => b.call("_[?_]", [b.i("m"), b.c("k")]), "optional_type(int)"],
    ["optional list entry", (b) => b.list([b.c(1n), b.i("opt")], [1]), "list(int)"],
    ["optional map entry", (b) => b.map([[b.c("a"), b.i("opt"), true]]), "map(string, int)"],
    ["all()", (b) => b.all(b.i("l"), ["v"], (b) => b.call("_>_", [b.i("v"), b.c(0n)])), "bool"],
    ["map() macro", (b) => b.mapMacro(b.i("l"), "v", (b) => b.call("string", [b.i("v")])), "list(string)"],
    ["map() over objects", (b) => b.mapMacro(b.path("self.spec.items"), "i", (b) => b.sel(b.i("i"), "name")), "list(string)"],
    ["two-var list all", (b) => b.all(b.i("l"), ["i", "v"], (b) => b.call("_<_", [b.i("i"), b.i("v")])), "bool"],
    [
      "two-var map all",
      (b) => b.all(b.i("m"), ["k", "v"], (b) => b.call("_&&_", [b.call("_==_", [b.i("k"), b.c("a")]), b.call("_>_", [b.i("v"), b.c(0n)])])),
      "bool",
    ],
    ["all over dyn", (b) => b.all(b.i("d"), ["v"], (b) => b.i("v")), "bool"],
    ["heterogeneous list joins to dyn (validator off)", (b) => b.list([b.c(1n), b.c("a")]), "list(dyn)"],
  ];
  const lenient = createCheckerEnv({ variables, libraries: [standardLibrary, optionalLibrary], homogeneousAggregateLiterals: false });
  it.each(cases)("%s", (name, build, expected) => {
    expect(result(build, name.includes("validator off") ? lenient : env)).toBe(expected);
  });
});

describe("checker: errors with cel-go's texts", () => {
  const cases: [string, Build, string[]][] = [
    ["undeclared ident", (b) => b.i("y"), ["undeclared reference to 'y' (in container '')"]],
    ["undeclared function", (b) => b.call("nope", [b.c(1n)]), ["undeclared reference to 'nope' (in container '')"]],
    ["undeclared member function", (b) => b.member(b.i("x"), "nope", []), ["undeclared reference to 'nope' (in container '')"]],
    ["no overload", (b) => b.call("_+_", [b.c(1n), b.c("a")]), ["found no matching overload for '_+_' applied to '(int, string)'"]],
    ["no member overload", (b) => b.member(b.i("x"), "size", []), ["found no matching overload for 'size' applied to 'int.()'"]],
    ["no member overload, args", (b) => b.member(b.i("s"), "startsWith", [b.c(1n)]), ["found no matching overload for 'startsWith' applied to 'string.(int)'"]],
    ["null shown as null", (b) => b.call("_+_", [b.c(null), b.c(1n)]), ["found no matching overload for '_+_' applied to '(null, int)'"]],
    ["list shown", (b) => b.call("_-_", [b.i("l"), b.c(1n)]), ["found no matching overload for '_-_' applied to '(list(int), int)'"]],
    ["undefined field", (b) => b.path("self.spec.nope"), ["undefined field 'nope'"]],
    ["unescaped keyword field", (b) => b.path("self.spec.namespace"), ["undefined field 'namespace'"]],
    ["field selection on int", (b) => b.sel(b.i("x"), "f"), ["type 'int' does not support field selection"]],
    ["&& with int", (b) => b.call("_&&_", [b.c(1n), b.c(true)]), ["expected type 'bool' but found 'int'"]],
    [
      "loop condition not bool",
      (b) => b.comprehension({ iterVar: "v", range: b.i("l"), init: b.c(true), cond: b.c(1n), step: b.c(true), result: b.c(true) }),
      ["expected type 'bool' but found 'int'"],
    ],
    [
      "loop step not accumulator type",
      (b) => b.comprehension({ iterVar: "v", range: b.i("l"), init: b.c(true), cond: b.c(true), step: b.c("x"), result: b.c(true) }),
      ["expected type 'bool' but found 'string'"],
    ],
    [
      "range not iterable",
      (b) => b.all(b.i("x"), ["v"], (b) => b.c(true)),
      ["expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)"],
    ],
    ["iter var out of scope", (b) => b.call("_&&_", [b.all(b.i("l"), ["v"], (b) => b.c(true)), b.i("v")]), ["undeclared reference to 'v' (in container '')"]],
    ["optional element not optional", (b) => b.list([b.c(1n)], [0]), ["expected type 'optional_type(int)' but found 'int'"]],
    ["optional map entry not optional", (b) => b.map([[b.c("a"), b.c(1n), true]]), ["expected type 'optional_type(int)' but found 'int'"]],
    ["heterogeneous list", (b) => b.list([b.c(1n), b.c("a")]), ["expected type 'int' but found 'string'"]],
    ["list with dyn element", (b) => b.list([b.c(1n), b.i("d")]), ["expected type 'int' but found 'dyn'"]],
    [
      "heterogeneous map",
      (b) => b.map([[b.c("a"), b.c(1n)], [b.c(2n), b.c("b")]]),
      ["expected type 'string' but found 'int'", "expected type 'int' but found 'string'"],
    ],
    ["format args exempt", (b) => b.member(b.c("%s %d"), "format", [b.list([b.c("a"), b.c(1n)])]), ["undeclared reference to 'format' (in container '')"]],
    ["bad duration literal", (b) => b.call("duration", [b.c("1x")]), ["invalid duration argument"]],
    ["bad timestamp literal", (b) => b.call("timestamp", [b.c("yesterday")]), ["invalid timestamp argument"]],
    ["bad regex literal", (b) => b.member(b.i("s"), "matches", [b.c("(")]), ["invalid matches argument"]],
    ["two errors", (b) => b.call("_+_", [b.i("a", 4), b.i("b", 0)]), ["undeclared reference to 'b' (in container '')", "undeclared reference to 'a' (in container '')"]],
    ["struct unknown type", (b) => b.struct("Nope", []), ["undeclared reference to 'Nope' (in container '')"]],
    ["struct unknown field", (b) => b.struct("selfType.spec.items.@idx", [["nope", b.c(1n)]]), ["undefined field 'nope'"]],
    [
      "struct field type",
      (b) => b.struct("selfType.spec.items.@idx", [["name", b.c(1n)]]),
      ["expected type of field 'name' is 'string' but provided type is 'int'"],
    ],
  ];
  it.each(cases)("%s", (_name, build, expected) => {
    expect(errors(build)).toEqual(expected);
  });

  it("reports cel-go's layout with the node's position", () => {
    const b = new AstBuilder();
    const parsed = b.parsed(b.call("_+_", [b.i("x", 0), b.c("a", 4)], 2), "x + 'a'");
    expect(() => check(parsed, env)).toThrowError(
      "ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'\n | x + 'a'\n | ..^",
    );
  });

  it("format arguments are exempt from the homogeneity check", () => {
    const lib = { name: "fmt", functions: [{ name: "format", overloads: [{ id: "string_format", member: true, params: [StringType, listOf(DynType)], result: StringType }] }] };
    const e = createCheckerEnv({ variables, libraries: [standardLibrary, lib] });
    expect(result((b) => b.member(b.c("%s %d"), "format", [b.list([b.c("a"), b.c(1n)])]), e)).toBe("string");
  });
});

describe("checker: checked tree", () => {
  it("records overloads, references and types for every node", () => {
    const b = new AstBuilder();
    const e = b.call("_<_", [b.i("x"), b.c(1.5)]);
    const checked = check(b.parsed(e), env);
    expect(checked.overloads.get(e.id)).toEqual(["less_int64_double"]);
    expect([...checked.references.values()]).toEqual(["x"]);
    expect(checked.types.size).toBe(3);
    expect(checked.types.get(e.id)).toEqual(BoolType);
  });

  it("keeps every overload a dyn argument allows", () => {
    const b = new AstBuilder();
    const e = b.member(b.i("d"), "size", []);
    const checked = check(b.parsed(e), env);
    expect([...checked.overloads.get(e.id)!].sort()).toEqual(["bytes_size", "list_size", "map_size", "string_size"]);
    expect(checked.types.get(e.id)).toEqual(IntType);
  });

  it("rewrites escaped field names to the schema's property names, leaving the parsed tree alone", () => {
    const b = new AstBuilder();
    const e = b.sel(b.path("self.spec"), "x__dash__y");
    const checked = check(b.parsed(e), env);
    expect(checked.expr.kind === "select" && checked.expr.field).toBe("x-y");
    expect(e.kind === "select" && e.field).toBe("x__dash__y");
    const b2 = new AstBuilder();
    const opt = b2.call("_?._", [b2.path("self.spec"), b2.c("__namespace__")]);
    const checked2 = check(b2.parsed(opt), env);
    const arg = checked2.expr.kind === "call" ? checked2.expr.args[1] : undefined;
    expect(arg?.kind === "const" && arg.value).toBe("namespace");
    expect(checked2.overloads.get(opt.id)).toEqual(["select_optional_field"]);
  });

  it("reads a select chain as a qualified name, and a namespaced function without its target", () => {
    const b = new AstBuilder();
    const t = b.path("google.protobuf.Timestamp");
    const checked = check(b.parsed(t), env);
    expect(checked.expr).toEqual({ id: t.id, kind: "ident", name: "google.protobuf.Timestamp" });
    expect(checked.references.get(t.id)).toBe("google.protobuf.Timestamp");

    const b2 = new AstBuilder();
    const call = b2.member(b2.i("optional"), "none", []);
    const c2 = check(b2.parsed(call), env);
    expect(c2.expr).toEqual({ id: call.id, kind: "call", fn: "optional.none", args: [] });
    expect(c2.overloads.get(call.id)).toEqual(["optional_none"]);
  });

  it("a comprehension variable shadows a qualified name", () => {
    const e2 = createCheckerEnv({ variables: { ...variables, "v.f": IntType }, libraries: [standardLibrary] });
    // v is a string: selecting a field of it is an error, as cel-go does not read `v.f` as the global.
    expect(errors((b) => b.all(b.i("m"), ["v"], (b) => b.call("_==_", [b.sel(b.i("v"), "f"), b.c(1n)])), e2)).toEqual([
      "type 'string' does not support field selection",
    ]);
    expect(result((b) => b.call("_==_", [b.path("v.f"), b.c(1n)]), e2)).toBe("bool");
  });

  it("substitutes type parameters by dyn in the final types", () => {
    const b = new AstBuilder();
    const e = b.list([]);
    const checked = check(b.parsed(e), env);
    expect(formatType(checked.resultType)).toBe("list(dyn)");
  });

  it("types double and string literals", () => {
    expect(run((b) => b.c(1.5)).resultType).toEqual(DoubleType);
  });
});

describe("createCheckerEnv", () => {
  it("merges functions of several libraries by name, first overload id wins", () => {
    const lib = (name: string, id: string): CheckerEnvOptions["libraries"][number] => ({
      name,
      functions: [{ name: "f", overloads: [{ id, member: false, params: [IntType], result: IntType }] }],
    });
    const e = createCheckerEnv({ variables: {}, libraries: [lib("a", "f_int"), lib("b", "f_int"), lib("c", "f_int2")] });
    expect(e.functions.get("f")!.overloads.map((o) => o.id)).toEqual(["f_int", "f_int2"]);
  });
});
