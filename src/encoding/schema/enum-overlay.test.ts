import { describe, expect, it } from "vitest";
import type { SchemaNode } from "../../apimachinery/schema.js";
import { withEnums } from "./enum-overlay.js";
import { getDefinition } from "./schema-facts.js";

describe("withEnums", () => {
  const schema: SchemaNode = {
    type: "object",
    properties: {
      mode: { type: "string" },
      modes: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "atomic" },
      other: { type: "string" },
    },
  };

  it("puts the values on the overlay's paths, sharing the rest and leaving the input as it was", () => {
    const out = withEnums(schema, { properties: { mode: { enum: ["A", "B"] }, modes: { items: { enum: ["C"] } } } }, "T");
    expect(out.properties!.mode).toEqual({ type: "string", enum: ["A", "B"] });
    expect(out.properties!.modes).toEqual({ type: "array", items: { type: "string", enum: ["C"] }, "x-kubernetes-list-type": "atomic" });
    expect(out.properties!.other).toBe(schema.properties!.other);
    expect(schema.properties!.mode).toEqual({ type: "string" });
  });

  it("refuses a path the schema lacks (a stale table)", () => {
    expect(() => withEnums(schema, { properties: { gone: { enum: ["x"] } } }, "T")).toThrow("enums.json: T has no property gone");
    expect(() => withEnums(schema, { properties: { mode: { items: { enum: ["x"] } } } }, "T")).toThrow("enums.json: T.mode has no items");
  });

  it("is applied to the built-in definitions", () => {
    expect(getDefinition("io.k8s.api.apps.v1.DeploymentStrategy")!.properties!.type).toEqual({ type: "string", enum: ["Recreate", "RollingUpdate"] });
    expect(getDefinition("io.k8s.api.core.v1.Container")!.properties!.image).toEqual({ type: "string" });
  });
});
