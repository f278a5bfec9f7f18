// settle(): the in-process controllers run until they have nothing left to do — a foreground
// deletion chain three levels deep, a namespace with finalizers — with no sleep anywhere; the
// `controllers` option picks which run; a retry waiting out its backoff is waited for, and a
// controller that keeps failing makes settle() reject naming it; an informer that cannot list its
// type (an undecryptable Secret) makes it reject at once naming the object.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CoreV1Api, KubeConfig, type V1ConfigMap } from "@kubernetes/client-node";
import { ApiError } from "../src/apimachinery/errors.js";
import { SettleBlockedError, SettleTimeoutError, type AdmissionPlugin, type KapiServer } from "../src/index.js";
import { defaultOptions } from "../src/server/options.js";
import { startApiServer } from "../src/server/start.js";
import { startControlEndpoint } from "../src/testing/control-endpoint.js";
import { TestHarness } from "../src/testing/harness.js";
import { req, startTestServer, withCredentials, type TestServer } from "./support/client.js";
import { settleRunning } from "./support/settle.js";

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

  it("a namespace whose content deletion failed is retried with backoff: gone when settle() resolves", async () => {
    await core.createNamespace({ body: { metadata: { name: "refusing" } } });
    await core.createNamespacedConfigMap({ namespace: "refusing", body: { metadata: { name: "stubborn" } } });
    refusals = 2;
    const t0 = performance.now();
    await core.deleteNamespace({ name: "refusing" });
    await s.settle();
    const ms = performance.now() - t0;
    console.log(`a namespace whose content deletion was refused twice: gone ${ms.toFixed(1)} ms after its DELETE, settle() included`);
    expect(refusals).toBe(0);
    expect(await status(core.readNamespace({ name: "refusing" }))).toBe(404);
    // Retried after 5 ms and 10 ms, not at the controller's 2 s periodic pass.
    expect(ms).toBeLessThan(1500);
  });

  it("rejects after its timeout naming the controller still retrying, and its error", async () => {
    const owner = await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "forever-owner" } } });
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "stubborn", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "forever-owner", uid: owner.metadata!.uid! }] } } });
    refusals = Infinity;
    await core.deleteNamespacedConfigMap({ namespace: "default", name: "forever-owner" });
    const err = await s.settle({ timeoutMs: 600 }).then(() => undefined, (e: Error) => e);
    expect(err).toBeInstanceOf(SettleTimeoutError);
    // Caught between attempts it is only retrying; caught mid-attempt it is working on that retry too.
    expect(err!.message).toMatch(/^settle: not settled after 600 ms: still busy: garbage-collector-controller (working; )?retrying 1 failed key: \S+ \(stubborn stays\)/);
    // Over `kapi testenv`'s control endpoint the same is a 504 Timeout naming the busy controller.
    const control = await startControlEndpoint({ harness: new TestHarness(), controls: s, token: "t" });
    try {
      const r = await fetch(control.url + "/settle", { method: "POST", headers: { authorization: "Bearer t" }, body: JSON.stringify({ timeoutMs: 300 }) });
      const body = await r.json();
      expect([r.status, body.reason, body.code]).toEqual([504, "Timeout", 504]);
      expect(body.message).toMatch(/^settle: not settled after 300 ms: still busy: garbage-collector-controller (working; )?retrying/);
      expect(body.details.causes).toEqual([{ field: "garbage-collector-controller", message: expect.stringMatching(/^(working; )?retrying 1 failed key: \S+ \(stubborn stays\)$/) }]);
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

describe("an informer that cannot list its type", () => {
  // A Secret written under a key the configuration no longer holds: the informers of secrets
  // cannot list them (client-go's reflector would retry its failing list with a backoff, and the
  // controllers reading through it never sync).
  const key = (fill: number) => Buffer.alloc(32, fill).toString("base64");
  const encryption = (name: string, fill: number) =>
    `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: ["secrets"]\n    providers:\n      - aescbc:\n          keys:\n            - name: ${name}\n              secret: "${key(fill)}"\n`;
  let dir: string;
  let configFile: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-settle-blocked-"));
    configFile = join(dir, "encryption.yaml");
    writeFileSync(configFile, encryption("old", 1));
    const s = await startTestServer({ dataDir: dir, options: { encryptionProviderConfig: configFile } });
    await coreOf(s).createNamespace({ body: { metadata: { name: "sealed" } } });
    await coreOf(s).createNamespacedSecret({ namespace: "sealed", body: { metadata: { name: "lost-key" }, stringData: { v: "x" } } });
    await s.stop();
    writeFileSync(configFile, encryption("new", 2));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("settle() fails at once naming the object, nothing spins meanwhile, and settles once the object is removed", async () => {
    // The test kit's start settles too: it refuses the start as quickly, naming the object.
    const t0 = performance.now();
    const refused = await startTestServer({ dataDir: dir, options: { encryptionProviderConfig: configFile } }).then(
      async (s) => (await s.stop(), undefined),
      (e: Error) => e,
    );
    expect(refused).toBeInstanceOf(SettleBlockedError);
    expect(performance.now() - t0).toBeLessThan(5000); // not the 10 s settle timeout

    const running = await startApiServer({ ...defaultOptions(), bindAddress: "127.0.0.1", securePort: 0, storageBackend: "sqlite", dataDir: dir, encryptionProviderConfig: configFile, featureGates: "AllowUnsafeMalformedObjectDeletion=true" });
    try {
      const t1 = performance.now();
      const err = await settleRunning(running).then(() => undefined, (e: Error) => e);
      const ms = performance.now() - t1;
      expect(err).toBeInstanceOf(SettleBlockedError);
      expect(err!.message).toMatch(/^settle: cannot settle: the informer of secrets cannot list them: \/registry\/secrets\/sealed\/lost-key: no matching key was found for the provided AES transformer/);
      expect((err as SettleBlockedError).blockedBy).toContainEqual({ resource: "secrets", error: expect.stringContaining("/registry/secrets/sealed/lost-key") });
      expect(ms).toBeLessThan(2000);
      console.log(`settle() with an undecryptable Secret stored: rejected after ${ms.toFixed(1)} ms`);
      // Over the control endpoint: a 500 InternalError (as the failing list is) whose causes name the type.
      const control = await startControlEndpoint({ harness: new TestHarness(), controls: { settle: () => settleRunning(running) }, token: "t" });
      try {
        const r = await fetch(control.url + "/settle", { method: "POST", headers: { authorization: "Bearer t" } });
        const body = await r.json();
        expect([r.status, body.reason]).toEqual([500, "InternalError"]);
        expect(body.message).toMatch(/^settle: cannot settle: the informer of secrets cannot list them: /);
        expect(body.details.causes).toContainEqual({ field: "secrets", message: expect.stringContaining("/registry/secrets/sealed/lost-key") });
      } finally {
        await control.close();
      }

      // Nobody spins on it: the informers retry with a growing wait from 50 ms (some 30 reads in
      // the first second, fewer after; a loop would make hundreds in this window). A window, not a wait for a
      // controller: what is measured is how often storage is read.
      const storage = running.storage;
      const range = storage.range.bind(storage);
      let reads = 0;
      storage.range = (prefix, o) => (prefix.startsWith("/registry/secrets/") && reads++, range(prefix, o));
      await new Promise((r) => setTimeout(r, 300));
      storage.range = range;
      expect(reads).toBeLessThan(100);

      // Removed (the unsafe delete): the informers list again at settle()'s request, and it settles.
      const server = withCredentials(running) as unknown as TestServer;
      const del = await req(server, "DELETE", "/api/v1/namespaces/sealed/secrets/lost-key?ignoreStoreReadErrorWithClusterBreakingPotential=true");
      expect(del.status).toBe(200);
      const t2 = performance.now();
      await settleRunning(running);
      expect(performance.now() - t2).toBeLessThan(2000);
    } finally {
      await running.stop();
    }
  });
});
