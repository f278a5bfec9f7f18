// A GET with no resourceVersion (a consistent read) is answered from the watch cache once the
// cache holds every event storage has committed: the same object at the same resourceVersion a
// storage read gives, read-your-writes after every update and delete, without a storage read
// (the storage request counter for gets stays still) — with client-node, as a controller reads.
import { CoreV1Api, KubeConfig, type V1ConfigMap } from "@kubernetes/client-node";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";

const ns = "default";
let s: EmbeddedTestServer;
let api: CoreV1Api;
let dir: string;

/** The storage layer's count of single-key reads of configmaps. */
async function storageGets(): Promise<number> {
  const m = await req(s, "GET", "/metrics");
  const line = m.text.split("\n").find((l) => l.startsWith("sqlite_requests_total{") && l.includes('operation="get"') && l.includes('resource="configmaps"'));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kapi-get-cache-"));
  s = await startTestServer({ storage: "sqlite", dataDir: dir });
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  api = kc.makeApiClient(CoreV1Api);
  // A list makes the configmaps' watch cache (as an informer's first list would).
  await api.listNamespacedConfigMap({ namespace: ns });
});

afterAll(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("GET from the watch cache", () => {
  it("reads every write back at once, as storage holds it, without reading storage", async () => {
    let last: V1ConfigMap = await api.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "c1", labels: { a: "b" } }, data: { n: "0" } } });
    let reads = 0;
    for (let i = 1; i <= 20; i++) {
      last.data = { n: String(i) };
      const written = await api.replaceNamespacedConfigMap({ name: "c1", namespace: ns, body: last });
      // An update reads storage itself: only the GETs after it are counted.
      const before = await storageGets();
      const read = await api.readNamespacedConfigMap({ name: "c1", namespace: ns });
      reads += (await storageGets()) - before;
      expect(read.metadata?.resourceVersion).toBe(written.metadata?.resourceVersion);
      expect(read.data).toEqual({ n: String(i) });
      last = read;
    }
    expect(reads).toBe(0);
    const before = await storageGets();
    // The same object a storage read gives (a GET at an exact resourceVersion reads storage).
    const fromCache = await req(s, "GET", `/api/v1/namespaces/${ns}/configmaps/c1`);
    const fromStorage = await req(s, "GET", `/api/v1/namespaces/${ns}/configmaps/c1?resourceVersion=${last.metadata!.resourceVersion}`);
    expect(fromCache.status).toBe(200);
    expect(fromCache.json).toEqual(fromStorage.json);
    expect(await storageGets()).toBe(before + 1);
  });

  it("answers 404 right after a delete, and a recreated object with its new uid", async () => {
    await api.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "c2" } } });
    const first = await api.readNamespacedConfigMap({ name: "c2", namespace: ns });
    await api.deleteNamespacedConfigMap({ name: "c2", namespace: ns });
    const gone = await req(s, "GET", `/api/v1/namespaces/${ns}/configmaps/c2`);
    expect(gone.status).toBe(404);
    expect(gone.json).toMatchObject({ kind: "Status", reason: "NotFound", message: 'configmaps "c2" not found', details: { name: "c2", kind: "configmaps" } });
    const again = await api.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "c2" } } });
    const read = await api.readNamespacedConfigMap({ name: "c2", namespace: ns });
    expect(read.metadata?.uid).toBe(again.metadata?.uid);
    expect(read.metadata?.uid).not.toBe(first.metadata?.uid);
  });

  it("serves each request's version of a group-resource the cache holds once", async () => {
    const a = await req(s, "GET", `/api/v1/namespaces/${ns}/configmaps/c1`);
    const yaml = await req(s, "GET", `/api/v1/namespaces/${ns}/configmaps/c1`, { headers: { accept: "application/yaml" } });
    expect(yaml.status).toBe(200);
    expect(yaml.text).toContain(`resourceVersion: "${a.json.metadata.resourceVersion}"`);
    expect(a.json).toMatchObject({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "c1", namespace: ns } });
  });
});
