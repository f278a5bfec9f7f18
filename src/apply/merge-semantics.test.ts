// Server-side apply: merging per schema markers, update bookkeeping and request checks.
import { describe, expect, it } from "vitest";
import { ApplyBadRequestError, applyPatch, recordUpdate, topLevelFields, TypedValueError } from "./index.js";
import type { ManagedFieldsEntry } from "./index.js";
import { apply, base, conflictOf, deployment, entry, stored, T0, T1, update, type Obj } from "./merge.testkit.js";

describe("merge semantics per schema markers", () => {
  it("containers merge by name, ports by containerPort+protocol", () => {
    const cfgA = deployment();
    cfgA.spec.template.spec.containers[0].ports = [{ containerPort: 80 }];
    const live = apply(undefined, cfgA, "manager-a");
    const cfgB = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { template: { spec: { containers: [
      { name: "nginx", ports: [{ containerPort: 80, protocol: "UDP" }] },
      { name: "sidecar", image: "envoy" },
    ] } } } };
    const r = apply(live, cfgB, "manager-b");
    const containers = r.spec.template.spec.containers;
    expect(containers.map((c: Obj) => c.name)).toEqual(["nginx", "sidecar"]);
    expect(containers[0].image).toBe("nginx:1.25");
    expect(containers[0].ports).toEqual([{ containerPort: 80 }, { containerPort: 80, protocol: "UDP" }]);
    expect(entry(r, "manager-b")!.fieldsV1).toEqual({
      "f:spec": { "f:template": { "f:spec": { "f:containers": {
        'k:{"name":"nginx"}': { ".": {}, "f:name": {}, "f:ports": { 'k:{"containerPort":80,"protocol":"UDP"}': { ".": {}, "f:containerPort": {}, "f:protocol": {} } } },
        'k:{"name":"sidecar"}': { ".": {}, "f:image": {}, "f:name": {} },
      } } } },
    });
  });

  it("finalizers (listType set) merge by value", () => {
    const live = apply(undefined, deployment({}, { finalizers: ["example.com/a"] }), "manager-a");
    const r = apply(live, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", finalizers: ["example.com/b"] } }, "manager-b");
    expect(r.metadata.finalizers).toEqual(["example.com/a", "example.com/b"]);
    expect(entry(r, "manager-b")!.fieldsV1).toEqual({ "f:metadata": { "f:finalizers": { 'v:"example.com/b"': {} } } });
    const dropped = apply(r, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" } }, "manager-b");
    expect(dropped.metadata.finalizers).toEqual(["example.com/a"]);
  });

  it("LabelSelector is atomic: the selector is one leaf and any change conflicts as a whole", () => {
    const live = apply(undefined, deployment(), "manager-a");
    expect(entry(live, "manager-a")!.fieldsV1!["f:spec"]["f:selector"]).toEqual({});
    const cfg = deployment();
    cfg.spec.selector = { matchLabels: { app: "web", tier: "x" } };
    const err = conflictOf(() => apply(live, cfg, "manager-b"));
    expect(err.causes.map((c) => c.field)).toEqual([".spec.selector"]);
    const forced = apply(live, cfg, "manager-b", { force: true });
    expect(forced.spec.selector).toEqual({ matchLabels: { app: "web", tier: "x" } });
  });

  it("atomic lists (container args) are replaced, not merged", () => {
    const cfg = deployment();
    cfg.spec.template.spec.containers[0].args = ["a", "b"];
    const live = apply(undefined, cfg, "manager-a");
    const next = deployment();
    next.spec.template.spec.containers[0].args = ["c"];
    const r = apply(live, next, "manager-a");
    expect(r.spec.template.spec.containers[0].args).toEqual(["c"]);
    expect(entry(r, "manager-a")!.fieldsV1!["f:spec"]["f:template"]["f:spec"]["f:containers"]['k:{"name":"nginx"}']).toHaveProperty("f:args", {});
  });

  it("labels (granular map) merge per key", () => {
    const live = apply(undefined, deployment({}, { labels: { a: "1" } }), "manager-a");
    const r = apply(live, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", labels: { b: "2" } } }, "manager-b");
    expect(r.metadata.labels).toEqual({ a: "1", b: "2" });
  });

  it("duplicate keys in an applied list are rejected", () => {
    const cfg = deployment();
    cfg.spec.template.spec.containers.push({ name: "nginx", image: "x" });
    expect(() => applyPatch(undefined, cfg, "m", undefined, base)).toThrow(TypedValueError);
    expect(() => applyPatch(undefined, cfg, "m", undefined, base)).toThrow('duplicate entries for key [name="nginx"]');
  });

  it("custom resources without a schema: maps granular, lists atomic", () => {
    const opts = { ...base, apiVersion: "example.com/v1", rootRef: undefined, schema: () => undefined };
    const cr = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 1, items: ["a"] } };
    const live = stored(applyPatch(undefined, cr, "manager-a", undefined, opts));
    expect(entry(live, "manager-a")!.fieldsV1).toEqual({ "f:spec": { ".": {}, "f:items": {}, "f:size": {} } });
    const err = conflictOf(() =>
      applyPatch(live, { ...cr, spec: { items: ["b"] } }, "manager-b", undefined, opts),
    );
    expect(err.causes.map((c) => c.field)).toEqual([".spec.items"]);
  });
});

describe("update bookkeeping", () => {
  it("create (POST) records an Update entry with '.' for newly created maps and items", () => {
    const obj = deployment({ replicas: 1 }, { labels: { app: "web" } });
    // The zero value of the Go type, as upstream compares a create against.
    const emptyObject = { metadata: {}, spec: { template: { metadata: {}, spec: { containers: null } }, strategy: {} }, status: {} };
    const r = recordUpdate(undefined, obj, "kubectl-create", undefined, { ...base, emptyObject });
    expect(r.managedFields).toEqual([
      {
        manager: "kubectl-create",
        operation: "Update",
        apiVersion: "apps/v1",
        time: T0,
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
          "f:spec": {
            "f:replicas": {},
            "f:selector": {},
            "f:template": {
              "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
              "f:spec": { "f:containers": { 'k:{"name":"nginx"}': { ".": {}, "f:image": {}, "f:name": {} } } },
            },
          },
        },
      },
    ]);
  });

  it("an apply after a create conflicts on fields the creator set", () => {
    const created = stored(recordUpdate(undefined, deployment({ replicas: 1 }), "creator", undefined, base));
    const err = conflictOf(() => apply(created, deployment({ replicas: 2 }), "kubectl"));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "creator" using apps/v1: .spec.replicas');
  });

  it("an existing object without managedFields: apply attributes existing fields to before-first-apply", () => {
    const legacy = { ...deployment({ replicas: 1 }), metadata: { name: "web", uid: "u" } };
    const untouched = recordUpdate(legacy, { ...legacy, spec: { ...legacy.spec, replicas: 2 } }, "editor", undefined, base);
    expect(untouched.managedFields).toEqual([]);
    const err = conflictOf(() => apply(legacy, deployment({ replicas: 3 }), "kubectl"));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "before-first-apply" using apps/v1: .spec.replicas');
  });

  it("a write that changes nothing keeps entries and times", () => {
    const live = update(apply(undefined, deployment({ replicas: 1 }), "a"), { ...deployment({ replicas: 1 }) }, "b");
    const again = recordUpdate(live, live, "b", undefined, { ...base, now: "2030-01-01T00:00:00Z" });
    expect(again.managedFields).toEqual(live.metadata.managedFields);
  });

  it("separate entries per operation and subresource, sorted as upstream", () => {
    const live = apply(undefined, deployment({ replicas: 1 }), "ctl");
    const withStatus = stored(
      recordUpdate(live, { ...live, status: { replicas: 1 } }, "ctl", undefined, { ...base, now: T1, subresource: "status" }),
    );
    const withUpdate = update(withStatus, { ...withStatus, spec: { ...withStatus.spec, paused: true } }, "ctl", "2024-05-01T09:00:00Z");
    expect(withUpdate.metadata.managedFields.map((e: ManagedFieldsEntry) => [e.manager, e.operation, e.subresource ?? ""])).toEqual([
      ["ctl", "Apply", ""],
      ["ctl", "Update", ""],
      ["ctl", "Update", "status"],
    ]);
  });

  it("ignored fields (reset by the strategy) are neither owned nor conflicting", () => {
    const opts = { ...base, ignoredFields: topLevelFields("status") };
    const r = applyPatch(undefined, { ...deployment({ replicas: 1 }), status: { replicas: 4 } }, "m", undefined, opts);
    expect(r.managedFields[0]!.fieldsV1).not.toHaveProperty("f:status");
  });

  it("more than 10 Update managers: the oldest merge into ancient-changes", () => {
    let obj = apply(undefined, deployment({ replicas: 0 }), "applier");
    for (let n = 1; n <= 12; n++) {
      const t = `2024-05-01T10:${String(n).padStart(2, "0")}:00Z`;
      obj = update(obj, { ...obj, metadata: { ...obj.metadata, labels: { ...obj.metadata.labels, [`l${n}`]: "x" } } }, `writer-${n}`, t);
    }
    const managers = obj.metadata.managedFields.map((e: ManagedFieldsEntry) => e.manager);
    expect(managers.filter((m: string) => m !== "applier")).toHaveLength(10);
    expect(managers).toContain("ancient-changes");
    expect(managers).not.toContain("writer-1");
  });
});

describe("request checks", () => {
  it("apply bodies may not carry managedFields, and must match the version", () => {
    const cfg = deployment({}, { managedFields: [] });
    expect(() => applyPatch(undefined, cfg, "m", undefined, base)).toThrow(new ApplyBadRequestError("metadata.managedFields must be nil"));
    expect(() => applyPatch(undefined, { ...deployment(), apiVersion: "apps/v1beta1" }, "m", undefined, base)).toThrow(
      "Incorrect version specified in apply patch. Specified patch version: apps/v1beta1, expected: apps/v1",
    );
  });
});
