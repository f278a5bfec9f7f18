import { describe, expect, it } from "vitest";
import { ApiError, conflict } from "../../apimachinery/errors.js";
import { clone, type KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import { admissionAttributes } from "../attributes.testkit.js";
import { resourceQuotaPlugin, type QuotaAccess } from "./plugin.js";

const podsType = { group: "", version: "v1", resource: "pods", kind: "Pod", namespaced: true, virtual: false, gr: { group: "", resource: "pods" } } as unknown as ResourceType;
const pod = (name: string) => ({ metadata: { name, namespace: "ns" }, spec: { containers: [{ name: "c", image: "x" }] } }) as KObject;
const attrs = (name: string, dryRun = false) => admissionAttributes({ operation: "CREATE", type: podsType, namespace: "ns", name, subresource: "", object: pod(name), dryRun });

/** Quotas in memory with resourceVersion preconditions; `interfere` runs before a write lands. */
function memoryAccess(hard: Record<string, string>, used: Record<string, string>) {
  let stored = { metadata: { name: "q", namespace: "ns", resourceVersion: "1", uid: "u" }, spec: { hard }, status: { hard, used } } as unknown as KObject;
  const state = { writes: 0, interfere: undefined as undefined | (() => void) };
  const access: QuotaAccess = {
    list: async () => [stored],
    get: async () => stored,
    async updateStatus(q) {
      state.interfere?.();
      state.interfere = undefined;
      if (q.metadata.resourceVersion !== stored.metadata.resourceVersion) throw conflict({ group: "", resource: "resourcequotas" }, "q", "the object has been modified");
      stored = clone(q);
      stored.metadata.resourceVersion = String(Number(q.metadata.resourceVersion) + 1);
      state.writes++;
    },
  };
  return {
    access,
    state,
    used: () => (stored.status as { used: Record<string, string> }).used,
    bump(used: Record<string, string>) {
      stored = clone(stored);
      (stored.status as { used: Record<string, string> }).used = used;
      stored.metadata.resourceVersion = String(Number(stored.metadata.resourceVersion) + 1);
    },
  };
}

describe("ResourceQuota plugin", () => {
  it("charges admitted writes one after another in a namespace", async () => {
    const m = memoryAccess({ pods: "2" }, { pods: "0" });
    const plugin = resourceQuotaPlugin(m.access);
    const results = await Promise.allSettled([plugin.validate!(attrs("a")), plugin.validate!(attrs("b")), plugin.validate!(attrs("c"))]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
    expect(((results[2] as PromiseRejectedResult).reason as ApiError).message).toBe('pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
    expect(m.used()).toEqual({ pods: "2" });
  });

  it("checks a dry run but never charges it", async () => {
    const m = memoryAccess({ pods: "1" }, { pods: "0" });
    const plugin = resourceQuotaPlugin(m.access);
    await plugin.validate!(attrs("a", true));
    expect(m.state.writes).toBe(0);
    m.bump({ pods: "1" });
    await expect(plugin.validate!(attrs("b", true))).rejects.toThrow("exceeded quota: q");
  });

  it("after a conflicting write, re-checks against the quota as it is now", async () => {
    const m = memoryAccess({ pods: "2" }, { pods: "0" });
    const plugin = resourceQuotaPlugin(m.access);
    m.state.interfere = () => m.bump({ pods: "2" }); // another server charged two pods meanwhile
    await expect(plugin.validate!(attrs("a"))).rejects.toThrow('pods "a" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
    m.bump({ pods: "1" });
    m.state.interfere = () => m.bump({ pods: "0" });
    await plugin.validate!(attrs("b"));
    expect(m.used()).toEqual({ pods: "1" });
  });

  it("gives up with the conflict after three retries", async () => {
    const m = memoryAccess({ pods: "5" }, { pods: "0" });
    const access: QuotaAccess = { ...m.access, updateStatus: async () => { throw conflict({ group: "", resource: "resourcequotas" }, "q", "the object has been modified"); } };
    const plugin = resourceQuotaPlugin(access);
    const err = (await Promise.resolve(plugin.validate!(attrs("a"))).then(() => undefined, (e: unknown) => e)) as ApiError;
    expect(err.code).toBe(409);
  });

  it("leaves cluster-scoped writes and namespaces without quotas alone", async () => {
    let listed = 0;
    const access: QuotaAccess = { list: async () => (listed++, []), get: async () => undefined, updateStatus: async () => { throw new Error("no"); } };
    const plugin = resourceQuotaPlugin(access);
    await plugin.validate!(attrs("a"));
    const nodes = { ...podsType, resource: "nodes", namespaced: false, gr: { group: "", resource: "nodes" } } as ResourceType;
    await plugin.validate!(admissionAttributes({ operation: "CREATE", type: nodes, namespace: "", name: "n", subresource: "", object: pod("n"), dryRun: false }));
    expect(listed).toBe(1);
  });
});
