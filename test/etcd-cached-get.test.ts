// GETs on etcd are answered from the watch cache once a progress round proves it holds etcd's
// current revision (src/storage/cacher/watch-cache.ts currentEntry): one round serves every GET
// waiting for it, so a burst of GETs does not read its key from etcd once each. What must hold:
// a GET through one server sees every write another server on the same etcd acknowledged before
// it (read-your-writes across replicas, as a GET read from etcd would), driven by a real client.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { defaultOptions } from "../src/server/options.js";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { etcdSkipReason, startEtcd, type EtcdProcess } from "./support/etcd.js";
import { parseMetricsPage } from "./support/prometheus-text.js";

const describeEtcd = etcdSkipReason ? describe.skip : describe;
if (etcdSkipReason) describe(`GETs from the watch cache on etcd (skipped: ${etcdSkipReason})`, () => it.skip("needs etcd", () => {}));

function core(s: EmbeddedTestServer): CoreV1Api {
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  return kc.makeApiClient(CoreV1Api);
}

describeEtcd("GETs from the watch cache on etcd", () => {
  let etcd: EtcdProcess;
  let a: EmbeddedTestServer;
  let b: EmbeddedTestServer;

  beforeAll(async () => {
    etcd = await startEtcd();
    const options = { etcdServers: [etcd.url], etcd: { ...defaultOptions().etcd, prefix: "/kapi-cached-get" } };
    a = await startTestServer({ storage: "etcd3", options });
    b = await startTestServer({ storage: "etcd3", options });
  }, 60_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await etcd?.cleanup();
  });

  it("a GET through one server returns what a write through the other acknowledged just before", async () => {
    const [onA, onB] = [core(a), core(b)];
    await onA.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "rw" }, data: { n: "0" } } });
    for (let i = 1; i <= 25; i++) {
      const written = await onA.patchNamespacedConfigMap({ namespace: "default", name: "rw", body: [{ op: "replace", path: "/data/n", value: String(i) }] });
      const read = await onB.readNamespacedConfigMap({ namespace: "default", name: "rw" });
      expect(read.data?.n).toBe(String(i));
      expect(read.metadata?.resourceVersion).toBe(written.metadata?.resourceVersion);
    }
    // A delete is seen at once too: 404, not the cached object.
    await onA.deleteNamespacedConfigMap({ namespace: "default", name: "rw" });
    await expect(onB.readNamespacedConfigMap({ namespace: "default", name: "rw" })).rejects.toMatchObject({ code: 404 });
  });

  it("a burst of GETs does not read the key from etcd once each", async () => {
    await core(b).createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "burst" }, data: { k: "v" } } });
    const keyReads = async () =>
      parseMetricsPage((await req(b, "GET", "/metrics")).text)
        .find("etcd_requests_total", { operation: "get", resource: "configmaps" })
        .reduce((n, x) => n + x.value, 0);
    const before = await keyReads();
    const answers = await Promise.all(Array.from({ length: 40 }, () => req(b, "GET", "/api/v1/namespaces/default/configmaps/burst")));
    for (const r of answers) {
      expect(r.status).toBe(200);
      expect(r.json.data).toEqual({ k: "v" });
    }
    expect(await keyReads()).toBe(before);
  });
});
