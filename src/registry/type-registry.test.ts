import { describe, expect, it } from "vitest";
import { defineResourceType, type ResourceType } from "./resource-type.js";
import { TypeRegistry, type TypeEvent } from "./type-registry.js";

const widget = (version: string, extra: Partial<Parameters<typeof defineResourceType>[0]> = {}): ResourceType =>
  defineResourceType({ group: "example.kapi.dev", version, resource: "widgets", kind: "Widget", namespaced: true, verbs: ["get", "list"], preferredVersion: "v1", ...extra });

function recorded(types: TypeRegistry): string[] {
  const log: string[] = [];
  types.subscribe((e: TypeEvent) => log.push(`${e.type} ${e.resource.version}${e.type === "updated" ? ` (was ${e.previous.kind})` : ""}`));
  return log;
}

describe("TypeRegistry", () => {
  it("announces every add, update and remove to its subscribers, in order", () => {
    const types = new TypeRegistry();
    const log = recorded(types);
    types.add(widget("v1"));
    types.update(widget("v1", { kind: "Gadget" }));
    expect(types.get("example.kapi.dev", "v1", "widgets")?.kind).toBe("Gadget");
    expect(types.remove("example.kapi.dev", "v1", "widgets")?.kind).toBe("Gadget");
    expect(types.get("example.kapi.dev", "v1", "widgets")).toBeUndefined();
    expect(log).toEqual(["added v1", "updated v1 (was Widget)", "removed v1"]);
  });

  it("refuses a second add and an update of an unknown type, and says nothing for them", () => {
    const types = new TypeRegistry();
    types.add(widget("v1"));
    const log = recorded(types);
    expect(() => types.add(widget("v1"))).toThrow(/already registered/);
    expect(() => types.update(widget("v2"))).toThrow(/not registered/);
    expect(types.remove("example.kapi.dev", "v2", "widgets")).toBeUndefined();
    expect(log).toEqual([]);
  });

  it("stops telling an unsubscribed listener", () => {
    const types = new TypeRegistry();
    const log: string[] = [];
    const unsubscribe = types.subscribe((e) => log.push(e.type));
    types.add(widget("v1"));
    unsubscribe();
    types.remove("example.kapi.dev", "v1", "widgets");
    expect(log).toEqual(["added"]);
  });

  it("keeps one stored type per group-resource, the preferred version, while any version is served", () => {
    const types = new TypeRegistry();
    types.add(widget("v1beta1"));
    types.add(widget("v1"));
    expect(types.stored().map((t) => t.version)).toEqual(["v1"]);
    expect(types.preferred("example.kapi.dev", "widgets")?.version).toBe("v1");
    types.remove("example.kapi.dev", "v1", "widgets");
    expect(types.stored().map((t) => t.version)).toEqual(["v1beta1"]);
    expect(types.enabledGroupVersions()).toEqual([{ group: "example.kapi.dev", version: "v1beta1" }]);
  });
});
