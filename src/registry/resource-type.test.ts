import { describe, expect, it } from "vitest";
import { defaultStrategy } from "./strategy.js";
import { defaultTablePrinter } from "./table-printer.js";
import { defineResourceType } from "./resource-type.js";

describe("defineResourceType", () => {
  it("derives names, storage prefix and defaults from a minimal declaration", () => {
    const t = defineResourceType({ group: "example.kapi.dev", version: "v1", resource: "widgets", kind: "Widget", namespaced: true, verbs: ["get", "list", "watch"] });
    expect(t).toMatchObject({
      apiVersion: "example.kapi.dev/v1",
      listKind: "WidgetList",
      keyPrefix: "/registry/example.kapi.dev/widgets/",
      gr: { group: "example.kapi.dev", resource: "widgets" },
      singularName: "widget",
      preferredVersion: "v1",
      hasStatus: false,
      virtual: false,
      protobuf: false,
      strategicMergePatch: false,
    });
    expect(t.strategy).toBe(defaultStrategy);
    expect(t.printer).toBe(defaultTablePrinter);
    expect([...t.verbs]).toEqual(["get", "list", "watch"]);
    expect(t.schema.nameOf("example.kapi.dev", "v1", "Widget")).toBeUndefined();
    expect(defineResourceType({ group: "", version: "v1", resource: "things", kind: "Thing", namespaced: false, verbs: [] }).keyPrefix).toBe("/registry/things/");
  });

  it("lists a declared scale as the autoscaling/v1 Scale subresource, and keeps subresources sorted", () => {
    const t = defineResourceType({
      group: "example.kapi.dev", version: "v1", resource: "widgets", kind: "Widget", namespaced: true, verbs: ["get"],
      subresources: [{ name: "status", kind: "Widget", verbs: ["get", "patch", "update"] }],
      scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
    });
    expect(t.hasStatus).toBe(true);
    expect(t.subresources.map((s) => s.name)).toEqual(["scale", "status"]);
    expect(t.subresources[0]).toEqual({ name: "scale", kind: "Scale", group: "autoscaling", version: "v1", verbs: ["get", "patch", "update"] });
  });

  it("offers metadata.name (and metadata.namespace when namespaced) plus the declared selectable fields", () => {
    const t = defineResourceType({
      group: "", version: "v1", resource: "things", kind: "Thing", namespaced: true, verbs: [],
      selectableFields: (o) => ({ "spec.color": String((o.spec as { color?: string } | undefined)?.color ?? "") }),
    });
    expect([...t.fieldSelectors.names].sort()).toEqual(["metadata.name", "metadata.namespace", "spec.color"]);
    expect(t.fieldSelectors.values({ metadata: { name: "a", namespace: "n" }, spec: { color: "red" } })).toEqual({ "metadata.name": "a", "metadata.namespace": "n", "spec.color": "red" });
    const cluster = defineResourceType({ group: "", version: "v1", resource: "things", kind: "Thing", namespaced: false, verbs: [] });
    expect([...cluster.fieldSelectors.names]).toEqual(["metadata.name"]);
  });
});
