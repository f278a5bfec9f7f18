import { describe, expect, it } from "vitest";
import { formatType, type CelType, type ObjectType } from "../types.js";
import { schemaAt, schemaToCelType, selfTypeOf, type StructuralSchema } from "./index.js";

const arrayOf = (type: string, format?: string, maxItems?: number): StructuralSchema => ({
  type: "array",
  items: { type, ...(format ? { format } : {}) },
  ...(maxItems !== undefined ? { maxItems } : {}),
});

// Upstream's TestEstimateMaxLengthJSON (apiextensions model/schemas_test.go): schema → MaxElements.
describe("size bounds as upstream's", () => {
  const cases: [string, StructuralSchema, number][] = [
    ["booleanArray", arrayOf("boolean"), 629145],
    ["durationArray", arrayOf("string", "duration"), 786431],
    ["datetimeArray", arrayOf("string", "date-time"), 142987],
    ["dateArray", arrayOf("string", "date"), 241978],
    ["numberArray", arrayOf("integer"), 1572863],
    ["doubleArray", arrayOf("number"), 1572863],
    ["stringArray", arrayOf("string"), 1048575],
    ["stringMap", { type: "object", additionalProperties: { type: "string" } }, 393215],
    [
      "objectOptionalPropertyArray",
      { type: "array", items: { type: "object", properties: { required: { type: "string" }, optional: { type: "string" } }, required: ["required"] } },
      185042,
    ],
    ["arrayWithLength", arrayOf("integer", "int64", 10), 10],
    ["stringWithLength", { type: "string", maxLength: 20 }, 80],
    ["mapWithLength", { type: "object", additionalProperties: { type: "string" }, maxProperties: 15 }, 15],
    ["durationMaxSize", { type: "string", format: "duration" }, 32],
    ["dateSize", { type: "string", format: "date" }, 12],
    ["maxdatetimeSize", { type: "string", format: "date-time" }, 32],
    ["maxintOrStringSize", { "x-kubernetes-int-or-string": true }, 3 * 1024 * 1024 - 2],
    ["intOrStringWithMaxLength", { "x-kubernetes-int-or-string": true, maxLength: 5 }, 20],
    [
      "objectDefaultFieldArray",
      { type: "array", items: { type: "object", properties: { field: { type: "string", default: "default" } }, required: ["field"] } },
      1048575,
    ],
    ["byteStringSize", { type: "string", format: "byte" }, 3145726],
    ["byteStringSetMaxLength", { type: "string", format: "byte", maxLength: 20 }, 20],
    ["plain string", { type: "string" }, 3145726],
    ["string enum", { type: "string", enum: ["a", "bbb", "cé"] }, 3],
    ["negative maxItems", arrayOf("string", undefined, -1), 0],
    ["int-or-string array", { type: "array", items: { "x-kubernetes-int-or-string": true } }, 1572863],
  ];
  it.each(cases)("%s", (_name, schema, maxSize) => {
    const t = schemaToCelType(schema) as CelType & { maxSize?: number };
    expect(t.maxSize).toBe(maxSize);
  });
});

describe("schema → CEL type", () => {
  const cases: [string, StructuralSchema, string | undefined][] = [
    ["integer", { type: "integer" }, "int"],
    ["number", { type: "number" }, "double"],
    ["boolean", { type: "boolean" }, "bool"],
    ["string", { type: "string" }, "string"],
    ["date-time", { type: "string", format: "date-time" }, "google.protobuf.Timestamp"],
    ["date", { type: "string", format: "date" }, "google.protobuf.Timestamp"],
    ["duration", { type: "string", format: "duration" }, "google.protobuf.Duration"],
    ["byte", { type: "string", format: "byte" }, "bytes"],
    ["other format", { type: "string", format: "email" }, "string"],
    ["int-or-string", { "x-kubernetes-int-or-string": true }, "dyn"],
    ["list", arrayOf("integer"), "list(int)"],
    ["list-type map keeps list", { ...arrayOf("string"), "x-kubernetes-list-type": "set" }, "list(string)"],
    ["map", { type: "object", additionalProperties: { type: "integer" } }, "map(string, int)"],
    ["object", { type: "object", properties: { a: { type: "string" } } }, "selfType"],
    ["no type", { "x-kubernetes-preserve-unknown-fields": true }, undefined],
    ["array without items", { type: "array" }, undefined],
    ["array of unexposed", { type: "array", items: { "x-kubernetes-preserve-unknown-fields": true } }, undefined],
    ["map of unexposed", { type: "object", additionalProperties: { "x-kubernetes-preserve-unknown-fields": true } }, undefined],
    ["additionalProperties: true is an object", { type: "object", additionalProperties: true }, "selfType"],
  ];
  it.each(cases)("%s", (_name, schema, expected) => {
    const t = schemaToCelType(schema);
    expect(t && formatType(t)).toBe(expected);
  });

  const crd: StructuralSchema = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        required: ["replicas"],
        properties: {
          replicas: { type: "integer" },
          "x-y": { type: "string" },
          namespace: { type: "string" },
          "@bad": { type: "string" },
          unknown: { "x-kubernetes-preserve-unknown-fields": true },
          free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          items: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
          labels: { type: "object", additionalProperties: { type: "object", properties: { v: { type: "string" } } } },
          template: { type: "object", "x-kubernetes-embedded-resource": true, properties: { spec: { type: "object" } } },
        },
      },
    },
  };

  it("names object types by path, escaped, and keeps the schema's property names as field keys", () => {
    const root = schemaToCelType(crd, { isResourceRoot: true, typeName: "selfType7" }) as ObjectType;
    expect(root.name).toBe("selfType7");
    expect([...root.fields.keys()].sort()).toEqual(["apiVersion", "kind", "metadata", "spec"]);
    const meta = root.fields.get("metadata")!.type as ObjectType;
    expect(meta.name).toBe("selfType7.metadata");
    expect([...meta.fields.keys()].sort()).toEqual(["generateName", "name"]);
    const spec = root.fields.get("spec")!.type as ObjectType;
    expect(spec.name).toBe("selfType7.spec");
    expect([...spec.fields.keys()].sort()).toEqual(["free", "items", "labels", "namespace", "replicas", "template", "x-y"]);
    expect(spec.fields.get("replicas")!.required).toBe(true);
    expect(spec.fields.get("x-y")!.required).toBe(false);
    expect(formatType(spec.fields.get("items")!.type)).toBe("list(selfType7.spec.items.@idx)");
    expect(formatType(spec.fields.get("labels")!.type)).toBe("map(string, selfType7.spec.labels.@elem)");
    const free = spec.fields.get("free")!.type as ObjectType;
    expect(free.fields.size).toBe(0);
    const template = spec.fields.get("template")!.type as ObjectType;
    expect([...template.fields.keys()].sort()).toEqual(["apiVersion", "kind", "metadata", "spec"]);
    expect(((template.fields.get("metadata")!.type) as ObjectType).name).toBe("selfType7.spec.template.metadata");
  });

  it("an escaped property name appears escaped in nested type names", () => {
    const t = schemaToCelType({ type: "object", properties: { "a-b": { type: "object", properties: {} } } }, { typeName: "T" }) as ObjectType;
    expect((t.fields.get("a-b")!.type as ObjectType).name).toBe("T.a__dash__b");
  });

  it("keeps a resource root that declares its type and object meta", () => {
    const s: StructuralSchema = {
      type: "object",
      properties: {
        kind: { type: "string", maxLength: 3 },
        apiVersion: { type: "string" },
        metadata: { type: "object", properties: { name: { type: "string" }, generateName: { type: "string" }, labels: { type: "object", additionalProperties: { type: "string" } } } },
      },
    };
    const t = schemaToCelType(s, { isResourceRoot: true }) as ObjectType;
    expect((t.fields.get("kind")!.type as { maxSize?: number }).maxSize).toBe(12);
    expect([...(t.fields.get("metadata")!.type as ObjectType).fields.keys()]).toContain("labels");
  });

  it("self at a nested node, an embedded resource is a resource root", () => {
    const template = schemaAt(crd, [{ property: "spec" }, { property: "template" }])!;
    const t = selfTypeOf(template) as ObjectType;
    expect(t.fields.has("apiVersion")).toBe(true);
    const item = schemaAt(crd, [{ property: "spec" }, { property: "items" }, "items"])!;
    expect(formatType(selfTypeOf(item, { typeName: "selfType1" })!)).toBe("selfType1");
    const label = schemaAt(crd, [{ property: "spec" }, { property: "labels" }, "additionalProperties", { property: "v" }])!;
    expect(formatType(selfTypeOf(label)!)).toBe("string");
    expect(schemaAt(crd, [{ property: "nope" }, "items"])).toBeUndefined();
  });
});
