import { describe, expect, it } from "vitest";
import { releaseCachesOfRetiredTypes } from "./cache-release.js";
import type { ObjectCacher } from "./list.js";
import { defineResourceType } from "./resource-type.js";
import { TypeRegistry } from "./type-registry.js";

const widget = (version: string, kind = "Widget") => defineResourceType({ group: "example.kapi.dev", version, resource: "widgets", kind, namespaced: true, verbs: ["list"] });
const prefix = "/registry/example.kapi.dev/widgets/";

function setup() {
  const types = new TypeRegistry();
  const dropped: string[] = [];
  const cacher = { drop: (p: string) => dropped.push(p) } as unknown as ObjectCacher;
  const stop = releaseCachesOfRetiredTypes(types, cacher);
  return { types, dropped, stop };
}

describe("releaseCachesOfRetiredTypes", () => {
  it("drops a group-resource's cache when its last served version goes, not before", () => {
    const { types, dropped } = setup();
    types.add(widget("v1"));
    types.add(widget("v2"));
    expect(dropped).toEqual([]);
    types.remove("example.kapi.dev", "v1", "widgets");
    expect(dropped).toEqual([]);
    types.remove("example.kapi.dev", "v2", "widgets");
    expect(dropped).toEqual([prefix]);
  });

  it("drops the cache when a type's declaration changes (it was decoded with the old one)", () => {
    const { types, dropped } = setup();
    types.add(widget("v1"));
    types.update(widget("v1", "Gadget"));
    expect(dropped).toEqual([prefix]);
  });

  it("keeps the cache when both declarations carry the same cache identity", () => {
    const { types, dropped } = setup();
    const t = (id: string) => ({ ...widget("v1"), cacheIdentity: id });
    types.add(t("a"));
    types.update(t("a"));
    expect(dropped).toEqual([]);
    types.update(t("b"));
    expect(dropped).toEqual([prefix]);
  });

  it("stops following the registry once unsubscribed", () => {
    const { types, dropped, stop } = setup();
    types.add(widget("v1"));
    stop();
    types.remove("example.kapi.dev", "v1", "widgets");
    expect(dropped).toEqual([]);
  });
});
