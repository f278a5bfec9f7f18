import { describe, expect, it } from "vitest";
import type { KObject } from "../apimachinery/object.js";
import { shareFieldSets } from "./shared-field-sets.js";
import { shareStrings } from "./shared-strings.js";
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

  it("equal managedFields field sets of different objects are one frozen set", () => {
    const a = pod("a", "Running");
    const b = pod("b", "Pending");
    shareFieldSets(a);
    shareFieldSets(b);
    const setA = setOf(a) as Record<string, unknown>;
    expect(setOf(b)).toBe(setA);
    expect(Object.isFrozen(setA) && Object.isFrozen(setA["f:spec"])).toBe(true);
    expect(() => {
      (setA as Record<string, unknown>)["f:status"] = {};
    }).toThrow(TypeError);
    const c = pod("c", "Running");
    (setOf(c) as Record<string, unknown>)["f:status"] = {};
    shareFieldSets(c);
    expect(setOf(c)).not.toBe(setA);
    // A new version after shareFieldSets: the frozen set is shared as it is, never written to.
    const d = pod("a", "Running");
    shareFieldSets(d);
    expect(() => shareUnchanged(d, a)).not.toThrow();
  });

  it("string sharing leaves every value as it was", () => {
    const a = pod("a", "Running");
    const want = JSON.stringify(a);
    shareStrings(a);
    shareStrings(a);
    expect(JSON.stringify(a)).toBe(want);
  });
});
