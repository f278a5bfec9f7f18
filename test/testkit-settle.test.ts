// settle(): the in-process controllers run until they have nothing left to do — a foreground
// deletion chain three levels deep, a namespace with finalizers — with no sleep anywhere; the
// `controllers` option picks which run; a retry waiting out its backoff is waited for, and a
// controller that keeps failing makes settle() reject naming it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoreV1Api, KubeConfig, type V1ConfigMap } from "@kubernetes/client-node";
import { ApiError } from "../src/apimachinery/errors.js";
import { SettleTimeoutError, type AdmissionPlugin, type KapiServer } from "../src/index.js";
import { startControlEndpoint } from "../src/testing/control-endpoint.js";
import { TestHarness } from "../src/testing/harness.js";
import { startTestServer } from "./support/client.js";

const coreOf = (s: KapiServer) => {
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  return kc.makeApiClient(CoreV1Api);
};
const status = (p: Promise<unknown>) => p.then(() => 200, (e: { code?: number }) => e.code);

/** owner ← child ← grandchild, each blocking its owner's deletion. */
async function chain(core: CoreV1Api, ns: string): Promise<string[]> {
  const names = ["owner", "child", "grandchild"];
  let owner: V1ConfigMap | undefined;
  for (const name of names) {
    const ownerReferences = owner ? [{ apiVersion: "v1", kind: "ConfigMap", name: owner.metadata!.name!, uid: owner.metadata!.uid!, blockOwnerDeletion: true }] : undefined;
    owner = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name, ownerReferences } } });
  }
  return names;
}

describe("with every controller", () => {
  let s: KapiServer;
  let core: CoreV1Api;
  /** Refuses the server's own deletes of ConfigMaps named "stubborn" while `refusals` lasts. */
  let refusals = 0;
  const refuseStubborn: AdmissionPlugin = {
    name: "RefuseStubborn",
    operations: ["DELETE"],
    validate(a) {
      if (a.type.resource === "configmaps" && a.name === "stubborn" && !a.user && refusals > 0) {
        refusals--;
        throw new ApiError(403, "Forbidden", "stubborn stays");
      }
    },
  };
  beforeAll(async () => {
    s = await startTestServer({ admissionPlugins: [refuseStubborn] });
    core = coreOf(s);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it("a foreground deletion three levels deep is complete when settle() resolves", async () => {
    const names = await chain(core, "default");
    const t0 = performance.now();
    await core.deleteNamespacedConfigMap({ namespace: "default", name: "owner", propagationPolicy: "Foreground" });
    const t1 = performance.now();
    await s.settle();
    const t2 = performance.now();
    console.log(`foreground deletion of a 3-level chain: DELETE answered in ${(t1 - t0).toFixed(1)} ms, settle() resolved ${(t2 - t1).toFixed(1)} ms later (${(t2 - t0).toFixed(1)} ms in all)`);
    for (const name of names) expect(await status(core.readNamespacedConfigMap({ namespace: "default", name }))).toBe(404);
  });

  it("a namespace with the kubernetes finalizer and content is gone when settle() resolves", async () => {
    await core.createNamespace({ body: { metadata: { name: "doomed" }, spec: { finalizers: ["kubernetes"] } } });
    await core.createNamespacedConfigMap({ namespace: "doomed", body: { metadata: { name: "inside" } } });
    await core.deleteNamespace({ name: "doomed" });
    await s.settle();
    expect(await status(core.readNamespace({ name: "doomed" }))).toBe(404);
    expect(await status(core.readNamespacedConfigMap({ namespace: "doomed", name: "inside" }))).toBe(404);
  });

  it("a namespace held by its content's finalizer: Terminating after settle(); gone at the settle() after the finalizer goes", async () => {
    await core.createNamespace({ body: { metadata: { name: "pinned-ns" } } });
    await core.createNamespacedConfigMap({ namespace: "pinned-ns", body: { metadata: { name: "pinned", finalizers: ["example.com/hold"] } } });
    await core.deleteNamespace({ name: "pinned-ns" });
    await s.settle(); // returns: nothing can happen until someone removes the finalizer
    expect((await core.readNamespace({ name: "pinned-ns" })).status!.phase).toBe("Terminating");
    const pinned = await core.readNamespacedConfigMap({ namespace: "pinned-ns", name: "pinned" });
    expect(pinned.metadata!.deletionTimestamp).toBeDefined();
    const t0 = performance.now();
    await core.replaceNamespacedConfigMap({ namespace: "pinned-ns", name: "pinned", body: { ...pinned, metadata: { ...pinned.metadata, finalizers: [] } } });
    // The namespace controller hears of the change of the content it left (not only at its 2 s
    // periodic pass): settle() waits for that pass, which empties and removes the namespace.
    await s.settle();
    const ms = performance.now() - t0;
    console.log(`a namespace held by a finalizer: gone ${ms.toFixed(1)} ms after the finalizer's removal, settle() included`);
    expect(await status(core.readNamespace({ name: "pinned-ns" }))).toBe(404);
    expect(ms).toBeLessThan(1500);
  });

  it("waits for a failed deletion's retry instead of returning while it is pending", async () => {
    const owner = await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "retried-owner" } } });
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "stubborn", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "retried-owner", uid: owner.metadata!.uid! }] } } });
    refusals = 2;
    await core.deleteNamespacedConfigMap({ namespace: "default", name: "retried-owner" });
    await s.settle();
    expect(refusals).toBe(0);
    expect(await status(core.readNamespacedConfigMap({ namespace: "default", name: "stubborn" }))).toBe(404);
  });

  it("rejects after its timeout naming the controller still retrying, and its error", async () => {
    const owner = await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "forever-owner" } } });
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "stubborn", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "forever-owner", uid: owner.metadata!.uid! }] } } });
    refusals = Infinity;
    await core.deleteNamespacedConfigMap({ namespace: "default", name: "forever-owner" });
    const err = await s.settle({ timeoutMs: 600 }).then(() => undefined, (e: Error) => e);
    expect(err).toBeInstanceOf(SettleTimeoutError);
    expect(err!.message).toMatch(/^settle: not settled after 600 ms: still busy: garbage-collector-controller retrying 1 failed key: \S+ \(stubborn stays\)/);
    // Over `kapi testenv`'s control endpoint the same is a 504 Timeout naming the busy controller.
    const control = await startControlEndpoint({ harness: new TestHarness(), controls: s, token: "t" });
    try {
      const r = await fetch(control.url + "/settle", { method: "POST", headers: { authorization: "Bearer t" }, body: JSON.stringify({ timeoutMs: 300 }) });
      const body = await r.json();
      expect([r.status, body.reason, body.code]).toEqual([504, "Timeout", 504]);
      expect(body.message).toMatch(/^settle: not settled after 300 ms: still busy: garbage-collector-controller retrying/);
      expect(body.details.causes).toEqual([{ field: "garbage-collector-controller", message: expect.stringMatching(/^retrying 1 failed key: \S+ \(stubborn stays\)$/) }]);
    } finally {
      await control.close();
    }
    refusals = 0;
    await expect(s.settle({ timeoutMs: "soon" as unknown as number })).rejects.toThrow('settle: timeoutMs must be a positive number of ms, got "soon"');
    await s.settle();
    expect(await status(core.readNamespacedConfigMap({ namespace: "default", name: "stubborn" }))).toBe(404);
  });
});

describe("choosing the controllers", () => {
  it("controllers: false — a deleted namespace stays Terminating and dependents stay after settle()", async () => {
    const s = await startTestServer({ controllers: false });
    try {
      const core = coreOf(s);
      // No ServiceAccount controller either: no default ServiceAccount in a new namespace.
      await core.createNamespace({ body: { metadata: { name: "kept" } } });
      await core.createNamespacedConfigMap({ namespace: "kept", body: { metadata: { name: "inside" } } });
      await core.deleteNamespace({ name: "kept" });
      const names = await chain(core, "default");
      await core.deleteNamespacedConfigMap({ namespace: "default", name: "owner" });
      await s.settle();
      expect((await core.readNamespace({ name: "kept" })).status!.phase).toBe("Terminating");
      expect(await status(core.readNamespacedConfigMap({ namespace: "kept", name: "inside" }))).toBe(200);
      expect(await status(core.readNamespacedServiceAccount({ namespace: "kept", name: "default" }))).toBe(404);
      for (const name of names.slice(1)) expect(await status(core.readNamespacedConfigMap({ namespace: "default", name }))).toBe(200);
    } finally {
      await s.stop();
    }
  });

  it('controllers: ["garbage-collector-controller"] — dependents go, a deleted namespace stays Terminating', async () => {
    const s = await startTestServer({ controllers: ["garbage-collector-controller"] });
    try {
      const core = coreOf(s);
      await core.createNamespace({ body: { metadata: { name: "kept" } } });
      await core.deleteNamespace({ name: "kept" });
      const names = await chain(core, "default");
      await core.deleteNamespacedConfigMap({ namespace: "default", name: "owner", propagationPolicy: "Foreground" });
      await s.settle();
      for (const name of names) expect(await status(core.readNamespacedConfigMap({ namespace: "default", name }))).toBe(404);
      expect((await core.readNamespace({ name: "kept" })).status!.phase).toBe("Terminating");
    } finally {
      await s.stop();
    }
  });

  it("an unknown controller name refuses the start with upstream's message", async () => {
    await expect(startTestServer({ controllers: ["garbage-collector"] })).rejects.toThrow('"garbage-collector" is not in the list of known controllers');
  });
});
