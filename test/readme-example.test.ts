// The README's library example, run as part of the suite. Everything from the first import on is
// the README's code block (with "kapi" for "../src/index.js"); test/readme-sync.test.ts fails when
// the two differ, so edit here and copy the text there.
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from "@kubernetes/client-node";
import { startServer, type KapiServer } from "../src/index.js";

// The controller under test: each ConfigMap labelled mirror=true gets a copy, <name>-mirror, owned
// by it, so the garbage collector removes the copy with its original.
async function startMirrorController(kc: KubeConfig, namespace: string) {
  const core = kc.makeApiClient(CoreV1Api);
  const fieldManager = "mirror-controller";
  const errors: unknown[] = [];
  const reconcile = async (source: V1ConfigMap) => {
    const name = `${source.metadata!.name}-mirror`;
    const owner = { apiVersion: "v1", kind: "ConfigMap", name: source.metadata!.name!, uid: source.metadata!.uid!, controller: true };
    for (let attempt = 1; ; attempt++) {
      const current = await core.readNamespacedConfigMap({ namespace, name }).catch((e) => (e.code === 404 ? undefined : Promise.reject(e)));
      try {
        if (!current) await core.createNamespacedConfigMap({ namespace, fieldManager, body: { metadata: { name, ownerReferences: [owner] }, data: source.data } });
        else await core.replaceNamespacedConfigMap({ namespace, name, fieldManager, body: { ...current, data: source.data } });
        return;
      } catch (e) {
        // Another writer got there first: read again and retry, as client-go's RetryOnConflict does.
        if ((e as { code?: number }).code !== 409 || attempt === 5) throw e;
      }
    }
  };
  let queue = Promise.resolve();
  const enqueue = (cm: V1ConfigMap) => (queue = queue.then(() => reconcile(cm)).catch((e) => void errors.push(e)));
  const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => core.listNamespacedConfigMap({ namespace, labelSelector: "mirror=true" }), "mirror=true");
  informer.on("add", enqueue);
  informer.on("update", enqueue);
  await informer.start();
  return { errors, stop: () => informer.stop() };
}

let server: KapiServer;
let core: CoreV1Api;
let controller: Awaited<ReturnType<typeof startMirrorController>>;

beforeAll(async () => {
  server = await startServer(); // in memory, on a free loopback port, every in-process controller on
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig); // admin credentials
  core = kc.makeApiClient(CoreV1Api);
  controller = await startMirrorController(kc, "default");
});

afterEach(async () => {
  expect(controller.errors).toEqual([]);
  await server.reset(); // back to the objects the server started with, in a few ms
  server.journal.clear();
  server.faults.clear();
});

afterAll(async () => {
  await controller.stop();
  await server.stop();
});

it("mirrors a labelled ConfigMap and retries the 409 its update meets", async () => {
  await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "settings", labels: { mirror: "true" } }, data: { mode: "fast" } } });
  // settle() covers the server's own controllers; this one runs in the test, so wait for its write.
  await server.waitFor({ verb: "create", resource: "configmaps", fieldManager: "mirror-controller", code: 201 }, { timeout: 5000 });

  // The controller's next update is refused once with 409 Conflict, as when another writer won.
  server.faults.add({ match: { verb: "update", resource: "configmaps", fieldManager: "mirror-controller" }, times: 1, action: { kind: "error", code: 409 } });
  const settings = await core.readNamespacedConfigMap({ namespace: "default", name: "settings" });
  await core.replaceNamespacedConfigMap({ namespace: "default", name: "settings", body: { ...settings, data: { mode: "safe" } } });

  await server.waitFor({ verb: "update", name: "settings-mirror", code: 200 }, { timeout: 5000 });
  const updates = server.journal.find({ verb: "update", name: "settings-mirror" });
  expect(updates.map((e) => e.code)).toEqual([409, 200]);
  expect(updates[0]!.fault).toMatchObject({ action: { kind: "error", code: 409 } });
  expect((await core.readNamespacedConfigMap({ namespace: "default", name: "settings-mirror" })).data).toEqual({ mode: "safe" });
});

it("the mirror goes with its original: the garbage collector has run when settle() resolves", async () => {
  await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "flags", labels: { mirror: "true" } }, data: { beta: "on" } } });
  await server.waitFor({ verb: "create", resource: "configmaps", fieldManager: "mirror-controller", code: 201 }, { timeout: 5000 });

  await core.deleteNamespacedConfigMap({ namespace: "default", name: "flags" });
  await server.settle(); // no sleep: returns once the garbage collector has nothing left to do
  const mirror = await core.readNamespacedConfigMap({ namespace: "default", name: "flags-mirror" }).catch((e) => e);
  expect(mirror.code).toBe(404);
});
