// Server-side apply: who owns which field after apply and update, and when applies conflict.
import { describe, expect, it } from "vitest";
import { deepClone } from "../apimachinery/json-value.js";
import { applyPatch, managerName, recordUpdate } from "./index.js";
import type { ManagedFieldsEntry } from "./index.js";
import { apply, base, conflictOf, deployment, entry, T0, T1, update, type Obj } from "./merge.testkit.js";

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
    const before = deepClone(live);
    const err = conflictOf(() => apply(live, deployment({ replicas: 3 }), "manager-b"));
    expect(live).toEqual(before);
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

  it("an update of fields its writer owns keeps every entry's fields as stored; one not as upstream writes it is rewritten", () => {
    const live = update(update(undefined, deployment({ replicas: 2 }, { labels: { app: "web" } }), "writer", T0), deployment({ replicas: 2 }, { labels: { app: "web", tier: "x" } }), "labeller");
    const stored = JSON.stringify(live.metadata.managedFields);
    const r = update(live, { ...live, spec: { ...live.spec, replicas: 3 } }, "writer");
    expect(JSON.stringify(entry(r, "writer"))).toBe(JSON.stringify({ ...entry(live, "writer"), time: T1 }));
    expect(JSON.stringify(entry(r, "labeller"))).toBe(JSON.stringify(entry(live, "labeller")));
    // The same entries with the writer's fields out of upstream's order: written in its order.
    const shuffled = deepClone(live);
    const w = entry(shuffled, "writer")!;
    const { "f:metadata": m, ...rest } = w.fieldsV1! as Record<string, object>;
    w.fieldsV1 = { ...rest, "f:metadata": m } as typeof w.fieldsV1;
    expect(JSON.stringify(shuffled.metadata.managedFields)).not.toBe(stored);
    const again = update(shuffled, { ...shuffled, spec: { ...shuffled.spec, replicas: 3 } }, "writer");
    expect(JSON.stringify(again.metadata.managedFields)).toBe(JSON.stringify(r.metadata.managedFields));
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
