import { describe, expect, it } from "vitest";
import { formatFieldError } from "../../apimachinery/validation.js";
import { applyDefaults, prune, validateObject, validateStructural, type JSONSchemaProps } from "./index.js";

const texts = (errs: ReturnType<typeof validateObject>) => errs.map(formatFieldError);

describe("validateObject", () => {
  const cases: [string, JSONSchemaProps, unknown, string[]][] = [
    ["type integer vs string", { type: "object", properties: { spec: { type: "object", properties: { replicas: { type: "integer" } } } } }, { spec: { replicas: "3" } },
      ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']],
    ["number accepts integer", { type: "object", properties: { n: { type: "number" } } }, { n: 3 }, []],
    ["null not nullable", { type: "object", properties: { a: { type: "string" } } }, { a: null },
      ['a: Invalid value: "null": a in body must be of type string: "null"']],
    ["nullable null", { type: "object", properties: { a: { type: "string", nullable: true } } }, { a: null }, []],
    ["int-or-string", { type: "object", properties: { p: { "x-kubernetes-int-or-string": true } } }, { p: true },
      ['p: Invalid value: "boolean": p in body must be of type integer,string: "boolean"']],
    ["enum", { type: "object", properties: { c: { type: "string", enum: ["a", "b"] } } }, { c: "x" },
      ['c: Unsupported value: "x": supported values: "a", "b"']],
    ["maxLength", { type: "object", properties: { s: { type: "string", maxLength: 2 } } }, { s: "abc" },
      ["s: Too long: may not be more than 2 bytes"]],
    ["minLength", { type: "object", properties: { s: { type: "string", minLength: 5 } } }, { s: "abc" },
      ['s: Invalid value: "abc": s in body should be at least 5 chars long']],
    ["pattern", { type: "object", properties: { s: { type: "string", pattern: "^a+$" } } }, { s: "b" },
      ["s: Invalid value: \"b\": s in body should match '^a+$'"]],
    ["maximum", { type: "object", properties: { n: { type: "integer", maximum: 10 } } }, { n: 11 },
      ["n: Invalid value: 11: n in body should be less than or equal to 10"]],
    ["exclusiveMinimum", { type: "object", properties: { n: { type: "integer", minimum: 1, exclusiveMinimum: true } } }, { n: 1 },
      ["n: Invalid value: 1: n in body should be greater than 1"]],
    ["multipleOf", { type: "object", properties: { n: { type: "integer", multipleOf: 3 } } }, { n: 4 },
      ["n: Invalid value: 4: n in body should be a multiple of 3"]],
    ["maxItems", { type: "object", properties: { l: { type: "array", maxItems: 1, items: { type: "string" } } } }, { l: ["a", "b"] },
      ["l: Too many: 2: must have at most 1 item"]],
    ["minItems", { type: "object", properties: { l: { type: "array", minItems: 2, items: { type: "string" } } } }, { l: ["a"] },
      ["l: Invalid value: 1: l in body should have at least 2 items"]],
    ["items path", { type: "object", properties: { l: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } } } }, { l: [{ name: 1 }] },
      ['l[0].name: Invalid value: "integer": l[0].name in body must be of type string: "integer"']],
    ["required", { type: "object", properties: { spec: { type: "object", required: ["a"], properties: { a: { type: "string" } } } } }, { spec: {} },
      ["spec.a: Required value"]],
    ["required at root", { type: "object", required: ["spec"], properties: { spec: { type: "object" } } }, {},
      ["spec: Required value"]],
    ["maxProperties", { type: "object", properties: { m: { type: "object", maxProperties: 1, additionalProperties: { type: "string" } } } }, { m: { a: "1", b: "2" } },
      ["m: Too many: 2: must have at most 1 item"]],
    ["format date-time", { type: "object", properties: { t: { type: "string", format: "date-time" } } }, { t: "yesterday" },
      ['t: Invalid value: "yesterday": t in body must be of type date-time: "yesterday"']],
    ["format int32 ignored", { type: "object", properties: { n: { type: "integer", format: "int32" } } }, { n: 2 ** 40 }, []],
    ["anyOf", { type: "object", properties: { n: { type: "integer", anyOf: [{ minimum: 5 }, { maximum: 1 }] } } }, { n: 3 },
      ['Invalid value: "": "n" must validate at least one schema (anyOf)', "n: Invalid value: 3: n in body should be greater than or equal to 5"].map((s) => (s.startsWith("Invalid") ? ": " + s : s))],
    ["not", { type: "object", properties: { s: { type: "string", not: { enum: ["x"] } } } }, { s: "x" },
      [': Invalid value: "": "s" must not validate the schema (not)']],
    ["additionalProperties schema", { type: "object", properties: { m: { type: "object", additionalProperties: { type: "integer" } } } }, { m: { a: "x" } },
      ['m.a: Invalid value: "string": m.a in body must be of type integer: "string"']],
    ["embedded resource", { type: "object", properties: { t: { type: "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true } } }, { t: { kind: "Foo" } },
      ["t.apiVersion: Required value"]],
  ];
  it.each(cases)("%s", (_n, schema, obj, want) => {
    expect(texts(validateObject(obj, schema))).toEqual(want);
  });
  it("prefixes paths", () => {
    expect(texts(validateObject({ a: 1 }, { type: "object", properties: { a: { type: "string" } } }, { path: "spec" }))).toEqual([
      'spec.a: Invalid value: "integer": a in body must be of type string: "integer"',
    ]);
  });
});

describe("prune", () => {
  const schema: JSONSchemaProps = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: {
          items: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
          free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          emb: { type: "object", "x-kubernetes-embedded-resource": true, properties: { spec: { type: "object" } } },
          m: { type: "object", additionalProperties: { type: "object", properties: { a: { type: "string" } } } },
        },
      },
    },
  };
  it("removes unknown fields and reports them", () => {
    const obj = {
      apiVersion: "x/v1", kind: "X", metadata: { name: "n" }, junk: 1,
      spec: { foo: 1, items: [{ name: "a", bar: 2 }], free: { any: { thing: 1 } }, emb: { apiVersion: "v1", kind: "Pod", metadata: {}, spec: {}, x: 1 }, m: { k: { a: "1", b: 2 } } },
    };
    expect(prune(obj, schema, { isResourceRoot: true })).toEqual(["junk", "spec.emb.x", "spec.foo", "spec.items[0].bar", "spec.m.k.b"]);
    expect(obj).toEqual({
      apiVersion: "x/v1", kind: "X", metadata: { name: "n" },
      spec: { items: [{ name: "a" }], free: { any: { thing: 1 } }, emb: { apiVersion: "v1", kind: "Pod", metadata: {}, spec: {} }, m: { k: { a: "1" } } },
    });
  });
  it("prunes metadata at a non-root without reporting at the root", () => {
    const obj = { metadata: {}, a: 1 };
    expect(prune(obj, { type: "object" }, { isResourceRoot: false })).toEqual(["a"]);
    expect(obj).toEqual({});
  });
});

describe("applyDefaults", () => {
  const schema: JSONSchemaProps = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        default: {},
        properties: {
          replicas: { type: "integer", default: 1 },
          mode: { type: "string", default: "a" },
          opt: { type: "string", nullable: true, default: "d" },
          gone: { type: "string" },
          list: { type: "array", items: { type: "object", properties: { p: { type: "integer", default: 80 } } } },
          m: { type: "object", additionalProperties: { type: "object", properties: { x: { type: "string", default: "y" } } } },
        },
      },
    },
  };
  it("applies nested defaults, nulls as upstream", () => {
    const obj: Record<string, unknown> = {};
    applyDefaults(obj, schema);
    expect(obj).toEqual({ spec: { replicas: 1, mode: "a", opt: "d" } });
    const o2 = { spec: { mode: null, opt: null, gone: null, list: [{}], m: { k: {} } } };
    applyDefaults(o2, schema);
    expect(o2).toEqual({ spec: { replicas: 1, mode: "a", opt: null, list: [{ p: 80 }], m: { k: { x: "y" } } } });
  });
});

describe("validateStructural", () => {
  const P = "spec.versions[0].schema.openAPIV3Schema";
  const cases: [string, JSONSchemaProps, string[]][] = [
    ["ok", { type: "object", properties: { spec: { type: "object" } } }, []],
    ["missing field type", { type: "object", properties: { spec: {} } }, [`${P}.properties[spec].type: Required value: must not be empty for specified object fields`]],
    ["missing root type", { properties: { spec: { type: "object" } } }, [`${P}.type: Required value: must not be empty at the root`]],
    ["array without items", { type: "object", properties: { l: { type: "array" } } }, [`${P}.properties[l].items: Required value: must be specified`]],
    ["type in anyOf", { type: "object", properties: { a: { type: "string", anyOf: [{ type: "string" }] } } }, [`${P}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`]],
    ["int-or-string anyOf allowed", { type: "object", properties: { a: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] } } }, []],
    ["completeness", { type: "object", properties: { a: { type: "object", anyOf: [{ properties: { b: {} } }] } } },
      [`${P}.properties[a].properties[b]: Required value: because it is defined in ${P}.properties[a].anyOf[0].properties[b]`]],
    ["root additionalProperties", { type: "object", additionalProperties: { type: "string" } }, [`${P}.additionalProperties: Forbidden: must not be used at the root`]],
    ["metadata", { type: "object", properties: { metadata: { type: "object", properties: { labels: { type: "object" } } } } },
      [`${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`]],
    ["$ref", { type: "object", $ref: "#/x" }, [`${P}: Invalid value: "": OpenAPIV3Schema '$ref' is not supported`]],
  ];
  it.each(cases)("%s", (_n, schema, want) => {
    expect(validateStructural(schema, P).map(formatFieldError)).toEqual(want);
  });
});
