import { describe, expect, it } from "vitest";
import type { ResourceType } from "../registry/resource-type.js";
import type { AdmissionAttributes } from "../registry/admission.js";
import { admissionAttributes } from "./attributes.testkit.js";
import { namespaceLifecycle, type NamespaceState } from "./namespace-lifecycle.js";

const configmaps = { group: "", resource: "configmaps", namespaced: true, gr: { group: "", resource: "configmaps" } } as ResourceType;
const namespaces = { group: "", resource: "namespaces", namespaced: false, gr: { group: "", resource: "namespaces" } } as ResourceType;
const states: Record<string, NamespaceState> = { live: "active", dying: "terminating" };
const plugin = namespaceLifecycle(async (ns) => states[ns] ?? "missing");

const run = async (a: Partial<AdmissionAttributes>) =>
  plugin.admit!(admissionAttributes({ operation: "CREATE", type: configmaps, namespace: "live", name: "x", subresource: "", dryRun: false, object: { metadata: { name: "x" } }, ...a }));

describe("NamespaceLifecycle", () => {
  it("lets creates into an active namespace through", async () => {
    await expect(run({})).resolves.toBeUndefined();
  });

  it("answers 404 for a missing namespace", async () => {
    await expect(run({ namespace: "gone" })).rejects.toMatchObject({ code: 404, message: 'namespaces "gone" not found' });
  });

  it("answers 403 with the NamespaceTerminating cause in a terminating namespace", async () => {
    const e = await run({ namespace: "dying" }).catch((x) => x);
    expect(e).toMatchObject({ code: 403, reason: "Forbidden", message: 'configmaps "x" is forbidden: unable to create new content in namespace dying because it is being terminated' });
    expect(e.details.causes).toEqual([{ reason: "NamespaceTerminating", message: "namespace dying is being terminated", field: "metadata.namespace" }]);
  });

  it("does not look at updates and deletes of content in a terminating namespace", async () => {
    await expect(run({ namespace: "dying", operation: "UPDATE" })).resolves.toBeUndefined();
    await expect(run({ namespace: "dying", operation: "DELETE" })).resolves.toBeUndefined();
  });

  it("refuses deleting the system namespaces only", async () => {
    const del = (name: string) => run({ operation: "DELETE", type: namespaces, namespace: "", name, object: undefined });
    await expect(del("kube-system")).rejects.toMatchObject({ code: 403, message: 'namespaces "kube-system" is forbidden: this namespace may not be deleted' });
    await expect(del("team-a")).resolves.toBeUndefined();
  });
});
