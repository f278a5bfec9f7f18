import { describe, expect, it } from "vitest";
import type { ManagedFieldsEntry } from "./managed-fields.js";
import { recordUpdate } from "./index.js";
import { replicasFieldPath, toParentEntries, toScaleEntries, type ReplicasPathOf } from "./scale-ownership.js";

const specReplicas = replicasFieldPath(".spec.replicas");
// apps/v1 keeps replicas at .spec.replicas; a second version of a custom resource elsewhere; v0 has no scale.
const paths: ReplicasPathOf = (v) => ({ "apps/v1": specReplicas, "x/v2": replicasFieldPath(".spec.size"), "x/v0": null })[v];

const entry = (e: Partial<ManagedFieldsEntry>): ManagedFieldsEntry => ({
  manager: "m",
  operation: "Update",
  apiVersion: "apps/v1",
  time: "2025-01-02T03:04:05Z",
  fieldsType: "FieldsV1",
  fieldsV1: { "f:spec": { "f:replicas": {}, "f:paused": {} } },
  ...e,
});

describe("toScaleEntries", () => {
  it("keeps the owners of the replicas field, owning the Scale's .spec.replicas in autoscaling/v1", () => {
    const got = toScaleEntries(
      [
        entry({ manager: "helm", operation: "Apply" }),
        entry({ manager: "other", fieldsV1: { "f:spec": { "f:paused": {} } } }),
        entry({ manager: "cr", apiVersion: "x/v2", fieldsV1: { "f:spec": { "f:size": {} } } }),
        entry({ manager: "old", apiVersion: "x/v0" }),
        entry({ manager: "unknown", apiVersion: "apps/v9" }),
      ],
      paths,
    );
    expect(got).toEqual([
      { manager: "helm", operation: "Apply", apiVersion: "autoscaling/v1", time: "2025-01-02T03:04:05Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:replicas": {} } } },
      { manager: "cr", operation: "Update", apiVersion: "autoscaling/v1", time: "2025-01-02T03:04:05Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:replicas": {} } } },
    ]);
  });
});

describe("toParentEntries", () => {
  it("moves the replicas field from its previous owners to the Scale's writer, with subresource scale", () => {
    const parent = [entry({ manager: "helm", operation: "Apply" })];
    const scale = [{ manager: "kubectl", operation: "Update", apiVersion: "autoscaling/v1", time: "2025-02-03T04:05:06Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:replicas": {} } }, subresource: "scale" }];
    expect(toParentEntries(parent, scale, paths, "apps/v1")).toEqual([
      { manager: "helm", operation: "Apply", apiVersion: "apps/v1", time: "2025-01-02T03:04:05Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:paused": {} } } },
      { manager: "kubectl", operation: "Update", apiVersion: "apps/v1", time: "2025-02-03T04:05:06Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:replicas": {} } }, subresource: "scale" },
    ]);
  });

  it("drops an entry left with nothing, and leaves entries without the replicas field alone", () => {
    const parent = [
      entry({ manager: "hpa", subresource: "scale", fieldsV1: { "f:spec": { "f:replicas": {} } } }),
      entry({ manager: "kcm", subresource: "status", fieldsV1: { "f:status": { "f:replicas": {} } } }),
      entry({ manager: "old", apiVersion: "x/v0" }),
    ];
    const scale = [{ manager: "kubectl", operation: "Update", apiVersion: "autoscaling/v1", time: "2025-02-03T04:05:06Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:replicas": {} } }, subresource: "scale" }];
    expect(toParentEntries(parent, scale, paths, "apps/v1").map((e) => [e.manager, e.subresource, e.fieldsV1])).toEqual([
      ["kcm", "status", { "f:status": { "f:replicas": {} } }],
      ["old", undefined, { "f:spec": { "f:replicas": {}, "f:paused": {} } }],
      ["kubectl", "scale", { "f:spec": { "f:replicas": {} } }],
    ]);
  });

  it("writes the replicas field at the path of the request's version", () => {
    const scale = [{ manager: "hpa", operation: "Update", apiVersion: "autoscaling/v1", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:replicas": {} } }, subresource: "scale" }];
    expect(toParentEntries([], scale, paths, "x/v2")).toEqual([
      { manager: "hpa", operation: "Update", apiVersion: "x/v2", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:size": {} } }, subresource: "scale" },
    ]);
  });

  it("a round trip through the Scale view that changes nothing keeps the entries as they were", () => {
    const parent = [entry({ manager: "helm", operation: "Apply" }), entry({ manager: "hpa", subresource: "scale", fieldsV1: { "f:spec": { "f:replicas": {} } } }), entry({ manager: "kubectl-create" })];
    expect(toParentEntries(parent, toScaleEntries(parent, paths), paths, "apps/v1")).toEqual(parent);
  });

  it("an Update on the Scale view takes the replicas field over from every previous owner", () => {
    const parent = [entry({ manager: "helm", operation: "Apply" }), entry({ manager: "kubectl-create", fieldsV1: { "f:spec": { "f:replicas": {} } } })];
    const scaleView = { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name: "d", uid: "u" }, spec: { replicas: 1 } };
    const tracked = recordUpdate(scaleView, { ...scaleView, spec: { replicas: 3 } }, "kubectl", toScaleEntries(parent, paths), {
      apiVersion: "autoscaling/v1",
      now: "2025-03-04T05:06:07Z",
      schema: () => undefined,
      rootRef: undefined,
      subresource: "scale",
    });
    expect(toParentEntries(parent, tracked.managedFields, paths, "apps/v1")).toEqual([
      { manager: "helm", operation: "Apply", apiVersion: "apps/v1", time: "2025-01-02T03:04:05Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:paused": {} } } },
      { manager: "kubectl", operation: "Update", apiVersion: "apps/v1", time: "2025-03-04T05:06:07Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:replicas": {} } }, subresource: "scale" },
    ]);
  });
});
