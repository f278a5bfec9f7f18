import { describe, expect, it } from "vitest";
import type { KObject } from "../apimachinery/object.js";
import { shareSubtrees } from "./shared-subtrees.js";
import { cacheSpec } from "./list.js";
import { defineResourceType } from "./resource-type.js";
import { shareUnchanged } from "./share-unchanged.js";

const pod = (name: string, phase: string): KObject =>
  JSON.parse(
    JSON.stringify({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name,
        labels: { app: "web" },
        managedFields: [
          { manager: "kubectl", operation: "Update", time: "2025-01-01T00:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:metadata": { "f:labels": { ".": {}, "f:app": {} } }, "f:spec": { "f:containers": { 'k:{"name":"web"}': { ".": {}, "f:image": {} } } } } },
        ],
      },
      spec: { containers: [{ name: "web", image: "web:1" }] },
      status: { phase, conditions: [{ type: "Ready", status: phase === "Running" ? "True" : "False" }] },
    }),
  ) as KObject;

const setOf = (o: KObject): unknown => (o.metadata.managedFields![0] as { fieldsV1?: unknown }).fieldsV1;

describe("cached objects share their parts", () => {
  it("a new version keeps the previous version's unchanged parts and its own changed ones", () => {
    const prev = pod("a", "Pending");
    const next = pod("a", "Running");
    const before = JSON.stringify(next);
    const shared = shareUnchanged(next, prev) as KObject;
    expect(shared).toBe(next);
    expect(JSON.stringify(shared)).toBe(before); // the same JSON, in the same key order
    expect(shared.spec).toBe(prev.spec);
    expect(shared.metadata).toBe(prev.metadata);
    expect(shared.status).not.toBe(prev.status);
    expect((shared.status as { conditions: unknown[] }).conditions).not.toBe((prev.status as { conditions: unknown[] }).conditions);
    // Equal throughout: the previous version itself.
    expect(shareUnchanged(pod("a", "Pending"), prev)).toBe(prev);
  });

  it("shares nothing whose keys differ in order or number, or whose arrays differ in length", () => {
    const prev = { a: { x: 1, y: 2 }, b: [1, 2], c: { x: 1 } };
    const next = { a: { y: 2, x: 1 }, b: [1, 2, 3], c: { x: 1, z: 0 } };
    const out = shareUnchanged(next, prev) as typeof next;
    expect(out.a).not.toBe(prev.a);
    expect(out.b).not.toBe(prev.b);
    expect(out.c).not.toBe(prev.c);
    expect(out).toEqual({ a: { y: 2, x: 1 }, b: [1, 2, 3], c: { x: 1, z: 0 } });
    expect(Object.keys(out.a)).toEqual(["y", "x"]);
  });

  it("equal parts of different objects are one frozen part; each root stays its own", () => {
    const a = pod("a", "Running");
    const b = pod("b", "Pending");
    const wantA = JSON.stringify(a);
    const wantB = JSON.stringify(b);
    shareSubtrees(a);
    shareSubtrees(b);
    expect(JSON.stringify(a)).toBe(wantA);
    expect(JSON.stringify(b)).toBe(wantB);
    expect(b.spec).toBe(a.spec);
    const setA = setOf(a) as Record<string, unknown>;
    expect(setOf(b)).toBe(setA);
    expect((b.metadata as { labels: unknown }).labels).toBe(a.metadata.labels);
    // Parts that differ are not shared, their equal children are.
    expect(b.metadata).not.toBe(a.metadata);
    expect(b.status).not.toBe(a.status);
    expect(Object.isFrozen(setA) && Object.isFrozen(setA["f:spec"]) && Object.isFrozen(a.spec)).toBe(true);
    expect(Object.isFrozen(a)).toBe(false);
    expect(() => {
      setA["f:status"] = {};
    }).toThrow(TypeError);
    // A part changed before sharing is not taken for the held one.
    const c = pod("c", "Running");
    (setOf(c) as Record<string, unknown>)["f:status"] = {};
    shareSubtrees(c);
    expect(setOf(c)).not.toBe(setA);
    // Held by one object only: not frozen until another shares it.
    expect(Object.isFrozen(setOf(c))).toBe(false);
    const e = pod("e", "Running");
    (setOf(e) as Record<string, unknown>)["f:status"] = {};
    shareSubtrees(e);
    expect(setOf(e)).toBe(setOf(c));
    expect(Object.isFrozen(setOf(c)) && Object.isFrozen((setOf(c) as Record<string, object>)["f:status"])).toBe(true);
    // A new version keeps the frozen parts of the one before as they are, never written to.
    const d = pod("a", "Running");
    shareSubtrees(d);
    expect(() => shareSubtrees(shareUnchanged(d, a) as KObject)).not.toThrow();
  });

  it("parts equal but for key order, array length or a value's type are not shared", () => {
    const x = { a: { p: 1, q: "2" }, b: { q: "2", p: 1 }, c: { p: "1", q: "2" }, d: [1, 2], e: [1, 2, 2] };
    shareSubtrees(x);
    expect(x.a).not.toBe(x.b);
    expect(x.a).not.toBe(x.c);
    expect(x.d).not.toBe(x.e);
    expect(JSON.stringify(x)).toBe('{"a":{"p":1,"q":"2"},"b":{"q":"2","p":1},"c":{"p":"1","q":"2"},"d":[1,2],"e":[1,2,2]}');
    // Long values alike at both ends (hashed by their ends) are still told apart.
    const long = (mid: string) => `${"a".repeat(40)}${mid}${"z".repeat(40)}`;
    const z = { f: { v: long("one") }, g: { v: long("two") } };
    shareSubtrees(z);
    expect(z.f).not.toBe(z.g);
    expect([z.f.v, z.g.v]).toEqual([long("one"), long("two")]);
    const y = { a: { p: 1, q: "2" }, d: [1, 2] };
    shareSubtrees(y);
    expect(y.a).toBe(x.a);
    expect(y.d).toBe(x.d);
  });
});

describe("the watch cache's decode", () => {
  it("shares parts across a type's objects once the type has had many decoded (a few of a kind are left as they are)", () => {
    const cm = defineResourceType({ group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true, verbs: ["get", "list"] });
    const decode = cacheSpec(cm).decode;
    const data = (i: number) => ({ key: `/registry/configmaps/d/c${i}`, value: JSON.stringify({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: `c${i}`, namespace: "d" }, data: { k: "v" } }), createRevision: i + 1, modRevision: i + 1 });
    const objects = Array.from({ length: 300 }, (_, i) => decode(data(i)).object as KObject & { data: object });
    expect(objects[1]!.data).not.toBe(objects[0]!.data);
    expect(Object.isFrozen(objects[0]!.data)).toBe(false);
    expect(objects[299]!.data).toBe(objects[298]!.data);
    expect(Object.isFrozen(objects[299]!.data)).toBe(true);
    expect(objects.every((o, i) => JSON.stringify(o.data) === '{"k":"v"}' && o.metadata.name === `c${i}`)).toBe(true);
  });
});
