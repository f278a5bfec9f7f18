import { describe, expect, it } from "vitest";
import { getDefinition } from "../types/schema-facts.js";
import {
  ApplyBadRequestError,
  ApplyConflictError,
  applyPatch,
  managerName,
  recordUpdate,
  topLevelFields,
  TypedValueError,
} from "./index.js";
import type { ApplyOptions, FieldManagerResult, ManagedFieldsEntry } from "./index.js";

const T0 = "2024-05-01T10:00:00Z";
const T1 = "2024-05-01T11:00:00Z";
const base: ApplyOptions = {
  force: false,
  apiVersion: "apps/v1",
  now: T0,
  schema: getDefinition,
  rootRef: "io.k8s.api.apps.v1.Deployment",
};

/* eslint-disable @typescript-eslint/no-explicit-any */
type Obj = any;

function deployment(spec: Obj = {}, meta: Obj = {}): Obj {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default", ...meta },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "nginx", image: "nginx:1.25" }] },
      },
      ...spec,
    },
  };
}

// Simulates storage: gives the created object a uid.
function stored(r: FieldManagerResult): Obj {
  const o: Obj = structuredClone(r.object);
  o.metadata.uid ??= "0a6c1b1e-uid";
  return o;
}

function apply(live: Obj, config: Obj, manager: string, opts: Partial<ApplyOptions> = {}): Obj {
  return stored(applyPatch(live, config, manager, undefined, { ...base, ...opts }));
}

function update(live: Obj, next: Obj, manager: string, now = T1): Obj {
  return stored(recordUpdate(live, next, manager, undefined, { ...base, now }));
}

function entry(obj: Obj, manager: string): ManagedFieldsEntry | undefined {
  return (obj.metadata.managedFields as ManagedFieldsEntry[] | undefined)?.find((e) => e.manager === manager);
}

function conflictOf(fn: () => unknown): ApplyConflictError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApplyConflictError) return e;
    throw e;
  }
  throw new Error("expected a conflict");
}

describe("kubectl apply --server-side of a simple Deployment", () => {
  it("creates the object and records upstream's Apply entry byte for byte", () => {
    const cfg = deployment({ replicas: 2 }, { labels: { app: "web" } });
    cfg.spec.template.spec.containers[0].ports = [{ containerPort: 80 }];
    const r = applyPatch(undefined, cfg, "kubectl", undefined, base);
    expect(r.managedFields).toHaveLength(1);
    expect(JSON.stringify(r.managedFields[0])).toBe(
      '{"manager":"kubectl","operation":"Apply","apiVersion":"apps/v1","time":"2024-05-01T10:00:00Z","fieldsType":"FieldsV1","fieldsV1":' +
        '{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},' +
        '"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":' +
        '{".":{},"f:containerPort":{}}}}}}}}}}',
    );
    expect(r.object.metadata).toMatchObject({ name: "web", labels: { app: "web" }, managedFields: r.managedFields });
    expect((r.object as Obj).spec.replicas).toBe(2);
  });

  it("a repeated identical apply is a no-op and keeps the entry's time", () => {
    const first = apply(undefined, deployment({ replicas: 2 }), "kubectl");
    const again = applyPatch(first, deployment({ replicas: 2 }), "kubectl", undefined, { ...base, now: T1 });
    expect(entry(again.object, "kubectl")!.time).toBe(T0);
    expect(again.object).toEqual(first);
  });
});

describe("field ownership table", () => {
  it("owned by A, apply by B with a different value: conflict, no change", () => {
    const live = apply(undefined, deployment({ replicas: 1 }), "manager-a");
    const err = conflictOf(() => apply(live, deployment({ replicas: 3 }), "manager-b"));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "manager-a": .spec.replicas');
    expect(err.causes).toEqual([{ reason: "FieldManagerConflict", message: 'conflict with "manager-a"', field: ".spec.replicas" }]);
    expect(err.status()).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'Apply failed with 1 conflict: conflict with "manager-a": .spec.replicas',
      reason: "Conflict",
      details: { causes: [{ reason: "FieldManagerConflict", message: 'conflict with "manager-a"', field: ".spec.replicas" }] },
      code: 409,
    });
  });

  it("conflict with an Update manager names its apiVersion", () => {
    const created = apply(undefined, deployment({ replicas: 1 }), "kubectl");
    const scaled = update(created, { ...created, spec: { ...created.spec, replicas: 5 } }, "kube-controller-manager");
    const err = conflictOf(() => apply(scaled, deployment({ replicas: 1 }), "kubectl"));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "kube-controller-manager" using apps/v1: .spec.replicas');
    expect(err.causes).toEqual([
      { reason: "FieldManagerConflict", message: 'conflict with "kube-controller-manager" using apps/v1', field: ".spec.replicas" },
    ]);
  });

  it("several conflicts: plural wording, grouped by manager, one cause per field and manager", () => {
    const live = apply(undefined, deployment({ replicas: 1, paused: false }), "manager-a");
    const withC = apply(live, deployment({ minReadySeconds: 5 }), "manager-c");
    const cfg = deployment({ replicas: 2, paused: true, minReadySeconds: 6 });
    cfg.spec.template.spec.containers[0].image = "nginx:1.26";
    const err = conflictOf(() => apply(withC, cfg, "manager-b"));
    expect(err.message).toBe(
      'Apply failed with 5 conflicts: conflicts with "manager-a":\n' +
        "- .spec.paused\n- .spec.replicas\n- .spec.template.spec.containers[name=\"nginx\"].image\n" +
        'conflicts with "manager-c":\n- .spec.minReadySeconds\n- .spec.template.spec.containers[name="nginx"].image',
    );
    expect(err.causes.map((c) => `${c.message} ${c.field}`)).toEqual([
      'conflict with "manager-a" .spec.paused',
      'conflict with "manager-a" .spec.replicas',
      'conflict with "manager-a" .spec.template.spec.containers[name="nginx"].image',
      'conflict with "manager-c" .spec.minReadySeconds',
      'conflict with "manager-c" .spec.template.spec.containers[name="nginx"].image',
    ]);
  });

  it("owned by A, apply by B with force: owned by B only, value changed", () => {
    const live = apply(undefined, deployment({ replicas: 1, paused: false }), "manager-a");
    const r = apply(live, deployment({ replicas: 3 }), "manager-b", { force: true, now: T1 });
    expect(r.spec.replicas).toBe(3);
    expect(entry(r, "manager-a")!.fieldsV1!["f:spec"]).not.toHaveProperty("f:replicas");
    expect(entry(r, "manager-a")!.fieldsV1!["f:spec"]).toHaveProperty("f:paused");
    expect(entry(r, "manager-b")!.fieldsV1!["f:spec"]).toHaveProperty("f:replicas");
    expect(entry(r, "manager-b")!.time).toBe(T1);
  });

  it("owned by A, apply by B with the same value: shared; a later change by either owner conflicts", () => {
    const live = apply(undefined, deployment({ replicas: 2 }), "manager-a");
    const shared = apply(live, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 2 } }, "manager-b");
    expect(entry(shared, "manager-a")!.fieldsV1!["f:spec"]).toHaveProperty("f:replicas");
    expect(entry(shared, "manager-b")!.fieldsV1).toEqual({ "f:spec": { "f:replicas": {} } });
    const err = conflictOf(() => apply(shared, deployment({ replicas: 4 }), "manager-a"));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "manager-b": .spec.replicas');
  });

  it("owned by A alone, A applies without the field: deleted (fields, list items, map entries)", () => {
    const cfg = deployment({ replicas: 2, minReadySeconds: 10 }, { labels: { app: "web", tier: "front" }, annotations: { note: "x" } });
    cfg.spec.template.spec.containers.push({ name: "sidecar", image: "busybox" });
    const live = apply(undefined, cfg, "manager-a");
    const next = deployment({ replicas: 2 }, { labels: { app: "web" } });
    const r = apply(live, next, "manager-a");
    expect(r.spec).not.toHaveProperty("minReadySeconds");
    expect(r.metadata.labels).toEqual({ app: "web" });
    expect(r.metadata).not.toHaveProperty("annotations");
    expect(r.spec.template.spec.containers.map((c: Obj) => c.name)).toEqual(["nginx"]);
    expect(entry(r, "manager-a")!.fieldsV1!["f:metadata"]).toEqual({ "f:labels": { "f:app": {} } });
  });

  it("owned by A and B, B applies without the field: owned by A only, value unchanged", () => {
    const live = apply(undefined, deployment({ replicas: 2, minReadySeconds: 10 }), "manager-a");
    const both = apply(live, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { minReadySeconds: 10, replicas: 2 } }, "manager-b");
    const r = apply(both, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 2 } }, "manager-b");
    expect(r.spec.minReadySeconds).toBe(10);
    expect(entry(r, "manager-b")!.fieldsV1).toEqual({ "f:spec": { "f:replicas": {} } });
    expect(entry(r, "manager-a")!.fieldsV1!["f:spec"]).toHaveProperty("f:minReadySeconds");
  });

  it("a field omitted by its applier but also owned by an Update manager stays", () => {
    const live = apply(undefined, deployment({ replicas: 2 }), "manager-a");
    const edited = update(live, { ...live, spec: { ...live.spec, minReadySeconds: 7 } }, "editor");
    const both = apply(edited, deployment({ replicas: 2, minReadySeconds: 7 }), "manager-a");
    const r = apply(both, deployment({ replicas: 2 }), "manager-a");
    expect(r.spec.minReadySeconds).toBe(7);
    expect(entry(r, "editor")!.fieldsV1).toEqual({ "f:spec": { "f:minReadySeconds": {} } });
  });

  it("owned by A, update (PUT) by B changes the value: owned by B, no conflict", () => {
    const live = apply(undefined, deployment({ replicas: 2 }), "manager-a");
    const name = managerName(undefined, "kubectl/v1.34.0 (linux/amd64) kubernetes/abc123");
    expect(name).toBe("kubectl");
    const r = update(live, { ...live, spec: { ...live.spec, replicas: 9 } }, name);
    expect(r.spec.replicas).toBe(9);
    expect(entry(r, "manager-a")!.fieldsV1!["f:spec"]).not.toHaveProperty("f:replicas");
    expect(entry(r, "kubectl")).toEqual({
      manager: "kubectl",
      operation: "Update",
      apiVersion: "apps/v1",
      time: T1,
      fieldsType: "FieldsV1",
      fieldsV1: { "f:spec": { "f:replicas": {} } },
    });
  });

  it("managedFields: [{}] in a non-apply write strips them; [] does not", () => {
    const live = apply(undefined, deployment({ replicas: 2 }), "manager-a");
    const kept = recordUpdate(live, { ...live, metadata: { ...live.metadata, managedFields: [] } }, "editor", undefined, { ...base, now: T1 });
    expect(kept.managedFields.map((e) => e.manager)).toEqual(["manager-a"]);
    const reset = recordUpdate(live, { ...live, metadata: { ...live.metadata, managedFields: [{}] } }, "editor", undefined, { ...base, now: T1 });
    expect(reset.managedFields).toEqual([]);
    expect(reset.object.metadata).not.toHaveProperty("managedFields");
  });

  it("a reset combined with other changes: reset first, then the writer owns its changes", () => {
    const live = apply(undefined, deployment({ replicas: 2 }), "manager-a");
    const r = recordUpdate(
      live,
      { ...live, metadata: { ...live.metadata, managedFields: [{}] }, spec: { ...live.spec, replicas: 4 } },
      "editor",
      undefined,
      { ...base, now: T1 },
    );
    expect(r.managedFields).toHaveLength(1);
    expect(r.managedFields[0]).toMatchObject({ manager: "editor", operation: "Update", fieldsV1: { "f:spec": { "f:replicas": {} } } });
  });

  it("a manager with no remaining fields disappears", () => {
    const live = apply(undefined, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 1 } }, "manager-a");
    const withB = apply(live, deployment({ replicas: 1 }), "manager-b");
    expect(withB.metadata.managedFields.map((e: ManagedFieldsEntry) => e.manager)).toEqual(["manager-a", "manager-b"]);
    const r = apply(withB, deployment({ replicas: 5 }), "manager-b", { force: true });
    expect(r.metadata.managedFields.map((e: ManagedFieldsEntry) => e.manager)).toEqual(["manager-b"]);
  });
});

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
