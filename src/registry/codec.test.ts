import { describe, expect, it } from "vitest";
import { decodeFromStorage, servedJson } from "./codec.js";
import { defineResourceType } from "./resource-type.js";

const cm = defineResourceType({ group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true, verbs: ["get", "list"] });

describe("servedJson", () => {
  it("splices the resourceVersion into stored bytes and equals the decoded object", () => {
    const value = JSON.stringify({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "a", namespace: "d" }, data: { k: "v" } });
    const kv = { key: "/registry/configmaps/d/a", value, createRevision: 3, modRevision: 7 };
    const json = servedJson(kv, cm)!;
    expect(JSON.parse(json)).toEqual(decodeFromStorage(kv, cm));
    expect(JSON.parse(json).metadata.resourceVersion).toBe("7");
  });

  it("handles empty metadata and falls back for other layouts", () => {
    const kv = (value: string) => ({ key: "k", value, createRevision: 1, modRevision: 2 });
    expect(JSON.parse(servedJson(kv('{"kind":"ConfigMap","apiVersion":"v1","metadata":{}}'), cm)!).metadata).toEqual({ resourceVersion: "2" });
    expect(servedJson(kv('{"metadata":{"name":"x"},"kind":"ConfigMap","apiVersion":"v1"}'), cm)).toBeUndefined();
    expect(servedJson(kv('{"kind":"ConfigMap","apiVersion":"v2","metadata":{}}'), cm)).toBeUndefined();
  });
});
