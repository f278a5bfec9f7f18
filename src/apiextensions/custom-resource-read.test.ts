// Reading custom resources: the storage version's defaults on decode (JSON cached per stored
// revision), which schemas need a defaulting pass, and when a definition counts as terminating.
import { describe, expect, it } from "vitest";
import { decodedJson, decodeFromStorage } from "../registry/codec.js";
import { customResourceTypes, hasDefaults, isTerminating, type CustomResourceDefinition } from "./custom-resource-type.js";

function def(spec: Record<string, unknown>, meta: Record<string, unknown> = {}, conditions: { type: string; status: string }[] = []): CustomResourceDefinition {
  return {
    metadata: { name: "things.t.example.com", uid: "u1", ...meta },
    spec: {
      group: "t.example.com",
      scope: "Namespaced",
      names: { plural: "things", kind: "Thing" },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", properties: { spec } } } }],
    },
    status: { conditions },
  };
}

describe("defaulting on read", () => {
  it("applies the storage version's defaults to decoded objects; types without defaults have no hook", () => {
    const [t] = customResourceTypes(def({ type: "object", properties: { a: { type: "string", default: "x" }, b: { type: "integer" } } }));
    const kv = { key: "/registry/t.example.com/things/ns/o", value: JSON.stringify({ kind: "Thing", apiVersion: "t.example.com/v1", metadata: { name: "o" }, spec: { b: 1 } }), modRevision: 5, createRevision: 5, version: 1 };
    expect(decodeFromStorage(kv as never, t!).spec).toEqual({ b: 1, a: "x" });
    const json = decodedJson(kv as never, t!);
    expect(JSON.parse(json)).toMatchObject({ metadata: { resourceVersion: "5" }, spec: { a: "x", b: 1 } });
    expect(decodedJson(kv as never, t!)).toBe(json); // same revision: the cached string
    const next = { ...kv, value: kv.value.replace('"b":1', '"b":2'), modRevision: 6 };
    expect(JSON.parse(decodedJson(next as never, t!)).spec).toEqual({ b: 2, a: "x" });
    const [plain] = customResourceTypes(def({ type: "object", properties: { b: { type: "integer" } } }));
    expect(plain!.onDecode).toBeUndefined();
  });

  it.each([
    [{ type: "object", properties: { a: { type: "string", default: "x" } } }, true],
    [{ type: "array", items: { type: "object", properties: { n: { type: "integer", default: 1 } } } }, true],
    [{ type: "object", additionalProperties: { type: "string", default: "v" } }, true],
    [{ type: "object", properties: { default: { type: "string" } } }, false],
    [{ type: "object", additionalProperties: true }, false],
  ])("hasDefaults(%j) = %s", (schema, want) => {
    expect(hasDefaults(schema)).toBe(want);
  });
});

describe("terminating definitions", () => {
  it("refuse creates with upstream's 405 once deleting or Terminating=True", () => {
    expect(isTerminating(def({}))).toBe(false);
    expect(isTerminating(def({}, { deletionTimestamp: "2025-01-01T00:00:00Z" }))).toBe(true);
    expect(isTerminating(def({}, {}, [{ type: "Terminating", status: "True" }]))).toBe(true);
    expect(isTerminating(def({}, {}, [{ type: "Terminating", status: "False" }]))).toBe(false);
    const state = { terminating: false };
    const [t] = customResourceTypes(def({}), {}, state);
    expect(t!.createRefused!()).toBeUndefined();
    state.terminating = true;
    const e = t!.createRefused!()!;
    expect([e.code, e.reason, e.message, e.details]).toEqual([405, "MethodNotAllowed", "create not allowed while custom resource definition is terminating", { group: "t.example.com", kind: "things" }]);
  });
});
