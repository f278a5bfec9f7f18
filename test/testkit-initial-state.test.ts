// A test process's later servers of one configuration start from a copy of the state its first
// one reached (src/testing/initial-state.ts): the same objects, each with a uid of its own, no
// bootstrap object written through the create path again, and reset() and isolation as for any
// server.
import { afterAll, describe, expect, it } from "vitest";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { startServer, type KapiServer, type Snapshot } from "../src/index.js";

const servers: KapiServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.stop())));

/** A configuration no other test file's servers share (the state is kept per configuration). */
async function start(log: string[]): Promise<KapiServer> {
  const s = await startServer({ storage: "memory", options: { minRequestTimeoutSeconds: 1777, log: (m) => void log.push(m) } });
  servers.push(s);
  return s;
}

const core = (s: KapiServer) => {
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  return kc.makeApiClient(CoreV1Api);
};

/** The objects without what differs between two servers' copies. */
const comparable = (snap: Snapshot) =>
  snap.objects.map(({ key, object }) => {
    const { uid, creationTimestamp, managedFields, ...metadata } = object.metadata;
    // Managed-fields times are the copy's time, like creationTimestamp: a second may pass between the two servers.
    const fields = Array.isArray(managedFields) ? { managedFields: managedFields.map(({ time, ...f }: Record<string, unknown>) => ({ ...f, hasTime: typeof time === "string" })) } : {};
    return { key, object: { ...object, metadata: { ...metadata, ...fields } }, hasUid: typeof uid === "string", hasTime: typeof creationTimestamp === "string" };
  });

describe("a later server of the same configuration", () => {
  it("starts from the first one's state: the same objects with uids of their own, nothing created the long way", async () => {
    const firstLog: string[] = [];
    const secondLog: string[] = [];
    const first = await start(firstLog);
    const second = await start(secondLog);
    expect(firstLog.some((l) => l.includes("RBAC bootstrap policy:"))).toBe(true);
    expect(secondLog.some((l) => l.includes("RBAC bootstrap policy:"))).toBe(false);
    const [a, b] = [await first.snapshot(), await second.snapshot()];
    expect(b.objects.length).toBeGreaterThan(100);
    expect(comparable(b)).toEqual(comparable(a));
    const uidsA = new Set(a.objects.map((o) => o.object.metadata.uid));
    expect(b.objects.filter((o) => uidsA.has(o.object.metadata.uid))).toEqual([]);
    const sa = await core(second).readNamespacedServiceAccount({ namespace: "default", name: "default" });
    expect(Date.now() - sa.metadata!.creationTimestamp!.getTime()).toBeLessThan(60_000);
  });

  it("is isolated from the first, and resets to its own initial state", async () => {
    const [first, second] = [await start([]), await start([])];
    const initial = await second.snapshot();
    await core(second).createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "only-here" } } });
    await core(second).deleteNamespacedServiceAccount({ namespace: "kube-public", name: "default" });
    await expect(core(first).readNamespacedConfigMap({ namespace: "default", name: "only-here" })).rejects.toMatchObject({ code: 404 });
    await second.reset();
    expect((await second.snapshot()).objects).toEqual(initial.objects);
  });
});
