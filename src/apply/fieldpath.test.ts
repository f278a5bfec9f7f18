import { describe, expect, it } from "vitest";
import {
  FieldSet,
  FieldsV1Error,
  comparePathElements,
  deserializePathElement,
  fieldElement as f,
  indexElement as i,
  keyElement,
  pathString,
  serializePathElement,
  valueElement as v,
} from "./fieldpath.js";

const k = (o: Record<string, string | number>) => keyElement(Object.entries(o));

describe("path elements", () => {
  it("serializes as upstream: f:, k: with sorted keys, v: JSON, i:", () => {
    expect(serializePathElement(f("spec"))).toBe("f:spec");
    expect(serializePathElement(k({ protocol: "TCP", containerPort: 80 }))).toBe('k:{"containerPort":80,"protocol":"TCP"}');
    expect(serializePathElement(v("a"))).toBe('v:"a"');
    expect(serializePathElement(v(3))).toBe("v:3");
    expect(serializePathElement(i(2))).toBe("i:2");
    // Go's encoder escapes HTML characters.
    expect(serializePathElement(k({ name: "<a&b>" }))).toBe('k:{"name":"\\u003ca\\u0026b\\u003e"}');
  });

  it("parses back, dropping unknown element types and rejecting malformed ones", () => {
    expect(deserializePathElement('k:{"protocol":"TCP","containerPort":80}')).toEqual(k({ containerPort: 80, protocol: "TCP" }));
    expect(deserializePathElement("i:7")).toEqual(i(7));
    expect(deserializePathElement("x:whatever")).toBeUndefined();
    expect(() => deserializePathElement("f")).toThrow(FieldsV1Error);
    expect(() => deserializePathElement("fx")).toThrow(/missing colon/);
    expect(() => deserializePathElement("k:[1]")).toThrow(FieldsV1Error);
  });

  it("shares field elements by name, and past the bound of shared names every key is still its own", () => {
    expect(f("spec")).toBe(f("spec"));
    // More distinct names than are shared (map keys are users'): the table starts afresh on the
    // way, and every name keeps its own element and key through FieldsV1 and back.
    const names = Array.from({ length: 10_000 }, (_, n) => `label-${n}`);
    const set = FieldSet.of(...names.map((name) => [f("metadata"), f("labels"), f(name)]));
    const json = set.toFieldsV1() as { "f:metadata": { "f:labels": Record<string, object> } };
    expect(Object.keys(json["f:metadata"]["f:labels"])).toEqual(names.map((name) => `f:${name}`).sort());
    expect(FieldSet.fromFieldsV1(json).equals(set)).toBe(true);
    expect(serializePathElement(f("label-1"))).toBe("f:label-1");
  });

  it("orders fields < keys < values < indexes", () => {
    const sorted = [i(0), v("a"), k({ name: "a" }), f("z"), f("a")].sort(comparePathElements);
    expect(sorted.map(serializePathElement)).toEqual(["f:a", "f:z", 'k:{"name":"a"}', 'v:"a"', "i:0"]);
  });

  it("prints paths as upstream", () => {
    expect(pathString([f("spec"), f("template"), f("spec"), f("containers"), k({ name: "c" }), f("image")])).toBe(
      '.spec.template.spec.containers[name="c"].image',
    );
    expect(pathString([f("spec"), f("ports"), k({ containerPort: 80, protocol: "TCP" })])).toBe('.spec.ports[containerPort=80,protocol="TCP"]');
    expect(pathString([f("metadata"), f("finalizers"), v("x")])).toBe('.metadata.finalizers[="x"]');
    expect(pathString([f("a"), i(1)])).toBe(".a[1]");
  });
});

describe("FieldsV1 read and written again", () => {
  // Each is read as a set that upstream writes differently: the set is written, not what was read.
  const cases: [string, Record<string, unknown>, string][] = [
    ["elements out of order", { "f:b": {}, "f:a": {} }, '{"f:a":{},"f:b":{}}'],
    ['"." after an element', { "f:a": { "f:x": {}, ".": {} } }, '{"f:a":{".":{},"f:x":{}}}'],
    ['"." with nothing beside it', { "f:a": { ".": {} } }, '{"f:a":{}}'],
    ['"." at the top', { ".": {}, "f:a": {} }, '{"f:a":{}}'],
    ['"." not empty', { "f:a": { ".": { "f:z": {} }, "f:x": {} } }, '{"f:a":{".":{},"f:x":{}}}'],
    ["an unknown element type", { "f:a": {}, "x:y": {} }, '{"f:a":{}}'],
    ["a key not as written", { 'k:{"protocol":"TCP","port":1}': {} }, '{"k:{\\"port\\":1,\\"protocol\\":\\"TCP\\"}":{}}'],
    ["an index not as written", { "i:+1": {} }, '{"i:1":{}}'],
    ["a difference deep below", { "f:a": { "f:b": { "f:d": {}, "f:c": {} } } }, '{"f:a":{"f:b":{"f:c":{},"f:d":{}}}}'],
  ];
  it.each(cases)("%s", (_name, json, written) => {
    const out = FieldSet.fromFieldsV1(json).toFieldsV1();
    expect(out).not.toBe(json);
    expect(JSON.stringify(out)).toBe(written);
  });

  it("a set changed after it was read is written as changed", () => {
    const json = { "f:a": {} };
    const s = FieldSet.fromFieldsV1(json).insert([f("b")]);
    expect(JSON.stringify(s.toFieldsV1())).toBe('{"f:a":{},"f:b":{}}');
    expect(json).toEqual({ "f:a": {} });
  });
});

describe("FieldSet", () => {
  const a = FieldSet.of([f("spec"), f("replicas")], [f("metadata"), f("labels"), f("app")]);
  const b = FieldSet.of([f("spec"), f("replicas")], [f("spec"), f("paused")]);

  it("union, intersection, difference, isEmpty", () => {
    expect(a.union(b).paths().map(pathString)).toEqual([".metadata.labels.app", ".spec.paused", ".spec.replicas"]);
    expect(a.intersection(b).paths().map(pathString)).toEqual([".spec.replicas"]);
    expect(a.difference(b).paths().map(pathString)).toEqual([".metadata.labels.app"]);
    expect(a.difference(a).isEmpty()).toBe(true);
    expect(new FieldSet().isEmpty()).toBe(true);
    expect(a.has([f("spec"), f("replicas")])).toBe(true);
    expect(a.has([f("spec")])).toBe(false);
  });

  it("recursiveDifference removes everything below a member", () => {
    const s = FieldSet.of([f("status")], [f("status"), f("replicas")], [f("spec"), f("replicas")]);
    expect(s.recursiveDifference(FieldSet.of([f("status")])).paths().map(pathString)).toEqual([".spec.replicas"]);
    expect(s.difference(FieldSet.of([f("status")])).paths().map(pathString)).toEqual([".spec.replicas", ".status.replicas"]);
  });

  it("writes FieldsV1 with '.' for nodes that are members and have members below", () => {
    const s = FieldSet.of(
      [f("metadata"), f("labels")],
      [f("metadata"), f("labels"), f("app")],
      [f("spec"), f("containers"), k({ name: "c" })],
      [f("spec"), f("containers"), k({ name: "c" }), f("image")],
      [f("spec"), f("containers"), k({ name: "c" }), f("name")],
      [f("spec"), f("finalizers"), v("x")],
    );
    expect(JSON.stringify(s.toFieldsV1())).toBe(
      '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{},"f:name":{}}},"f:finalizers":{"v:\\"x\\"":{}}}}',
    );
  });

  it("reads FieldsV1 back to the same set", () => {
    const json = {
      "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
      "f:spec": { "f:containers": { 'k:{"name":"c"}': { ".": {}, "f:image": {} } }, "f:replicas": {} },
    };
    const s = FieldSet.fromFieldsV1(json);
    expect(s.paths().map(pathString)).toEqual([
      ".metadata.labels",
      ".metadata.labels.app",
      ".spec.replicas",
      '.spec.containers[name="c"]',
      '.spec.containers[name="c"].image',
    ]);
    expect(s.toFieldsV1()).toEqual(json);
    // Written as it was read: the object read stands for the set.
    expect(s.toFieldsV1()).toBe(json);
    expect(FieldSet.fromFieldsV1({}).isEmpty()).toBe(true);
    expect(() => FieldSet.fromFieldsV1({ "f:a": 1 })).toThrow(FieldsV1Error);
  });
});
