// The seam a test kit's settle() waits on: a running server says whether its in-process
// controllers and informer handlers have work at hand, and waits (on the queues' own signals)
// until they have none — so what the controllers do after a write can be read at once.
import { afterEach, describe, expect, it } from "vitest";
import type { KObject } from "../src/apimachinery/object.js";
import { defaultOptions } from "../src/server/options.js";
import { startApiServer, type RunningServer } from "../src/server/start.js";

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});

async function start(): Promise<RunningServer> {
  const s = await startApiServer({ ...defaultOptions(), bindAddress: "127.0.0.1", securePort: 0, storageBackend: "memory", dataDir: "", writeKubeconfig: false });
  servers.push(s);
  return s;
}

const turn = () => new Promise((r) => setImmediate(r));

describe("controllers idle", () => {
  it("is not idle until the controllers that start once serving have started, then idle after they caught up", async () => {
    const s = await start();
    expect(s.controllersIdle()).toBe(false); // the garbage collector starts a little after listening
    await s.whenControllersIdle();
    expect(s.controllersIdle()).toBe(true);
  });

  it("counts what a write sets off until the controllers it reaches are done with it", async () => {
    const s = await start();
    await s.whenControllersIdle();
    const { stores, types } = s.parts;
    const ns = types.get("", "v1", "namespaces")!;
    const cm = types.get("", "v1", "configmaps")!;
    await stores.for(ns).create("", { metadata: { name: "fresh" } } as KObject, { dryRun: false });
    await turn(); // the write's events reach the informers as microtasks of its commit
    expect(s.controllersIdle()).toBe(false);
    await s.whenControllersIdle();
    expect(s.controllersIdle()).toBe(true);
    // The root CA publisher has done its work by now: read once, no polling.
    const published = await stores.for(cm).get("fresh", "kube-root-ca.crt").catch(() => undefined);
    expect(published?.metadata.name).toBe("kube-root-ca.crt");
  });

  it("counts an informer between a broken feed and its relist: what the relist brings is work on its way", async () => {
    const s = await start();
    await s.whenControllersIdle();
    const { stores, types, cacher } = s.parts;
    const ns = types.get("", "v1", "namespaces")!;
    const cm = types.get("", "v1", "configmaps")!;
    await stores.for(ns).create("", { metadata: { name: "gap" } } as KObject, { dryRun: false });
    await s.whenControllersIdle();
    // Every informer of configmaps loses its feed (as when its cache is replaced) and lists again
    // after a pause; the root CA publisher hears of the deletion only then.
    cacher.drop(cm.keyPrefix);
    await stores.for(cm).delete("gap", "kube-root-ca.crt", { dryRun: false });
    await turn();
    expect(s.controllersIdle()).toBe(false);
    await s.whenControllersIdle();
    const published = await stores.for(cm).get("gap", "kube-root-ca.crt").catch(() => undefined);
    expect(published?.metadata.name).toBe("kube-root-ca.crt");
  });
});
