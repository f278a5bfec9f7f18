// Replicas starting together reconcile the same default policy over one storage: each start
// succeeds, and every object ends up once and as the policy says.
import { describe, expect, it } from "vitest";
import { admissionChain } from "../../admission/chain.js";
import type { KObject } from "../../apimachinery/object.js";
import { Stores } from "../../registry/stores.js";
import { MemoryStorage } from "../../storage/memory/memory-storage.js";
import { builtinTypeRegistry } from "../../types/register.js";
import { bootstrapPolicy, reconcileBootstrapPolicy } from "./index.js";

const rbacTypes = () => builtinTypeRegistry((f) => f.group === "rbac.authorization.k8s.io" && f.version === "v1");

describe("bootstrap policy reconciled by replicas at once", () => {
  it("three reconciles racing over one storage all succeed and leave each object once", async () => {
    const storage = new MemoryStorage();
    const types = rbacTypes();
    // One Stores per replica, as each server has its own.
    const replicas = [0, 1, 2].map(() => new Stores(storage, admissionChain([])));
    const results = await Promise.allSettled(replicas.map((stores) => reconcileBootstrapPolicy({ stores, types, log: () => undefined })));
    expect(results.map((r) => (r.status === "rejected" ? String(r.reason) : "ok"))).toEqual(["ok", "ok", "ok"]);
    const policy = bootstrapPolicy();
    const clusterRoles = types.get("rbac.authorization.k8s.io", "v1", "clusterroles")!;
    const bindings = types.get("rbac.authorization.k8s.io", "v1", "clusterrolebindings")!;
    expect((await storage.range(clusterRoles.keyPrefix)).items).toHaveLength(policy.clusterRoles.length);
    expect((await storage.range(bindings.keyPrefix)).items).toHaveLength(policy.clusterRoleBindings.length);
    // A fourth start finds nothing to do.
    const again = await reconcileBootstrapPolicy({ stores: new Stores(storage, admissionChain([])), types, log: () => undefined });
    expect(again.created + again.updated + again.recreated).toBe(0);
    await storage.close();
  });

  it("a binding whose roleRef changed is recreated once, not by every replica", async () => {
    const storage = new MemoryStorage();
    const types = rbacTypes();
    const bindings = types.get("rbac.authorization.k8s.io", "v1", "clusterrolebindings")!;
    await reconcileBootstrapPolicy({ stores: new Stores(storage, admissionChain([])), types, log: () => undefined });
    const name = "system:basic-user";
    const s = new Stores(storage, admissionChain([])).for(bindings);
    await s.delete("", name, { dryRun: false });
    const wrong = { ...structuredClone(bootstrapPolicy().clusterRoleBindings.find((b) => b.metadata.name === name)!), roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" } };
    await s.create("", wrong as KObject, { dryRun: false });
    const results = await Promise.allSettled([0, 1, 2].map(() => reconcileBootstrapPolicy({ stores: new Stores(storage, admissionChain([])), types, log: () => undefined })));
    expect(results.map((r) => (r.status === "rejected" ? String(r.reason) : "ok"))).toEqual(["ok", "ok", "ok"]);
    expect(results.reduce((n, r) => n + (r.status === "fulfilled" ? r.value.recreated : 0), 0)).toBe(1);
    const stored = await s.get("", name);
    expect((stored as unknown as { roleRef: { name: string } }).roleRef.name).toBe("system:basic-user");
    await storage.close();
  });
});
