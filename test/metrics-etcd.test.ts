// /metrics of a server on etcd whose watches get a progress notification every 200 ms: the
// storage watch families (events received, etcd bookmarks) and the keys per etcd lease (an
// Event is written with a TTL, so on a lease), read from the page by a real Prometheus parser.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultOptions } from "../src/server/options.js";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { etcdSkipReason, startEtcd, type EtcdProcess } from "./support/etcd.js";
import { parseMetricsPage, type MetricsPage } from "./support/prometheus-text.js";

const describeEtcd = etcdSkipReason ? describe.skip : describe;
if (etcdSkipReason) describe(`storage metrics on etcd (skipped: ${etcdSkipReason})`, () => it.skip("needs etcd", () => {}));

describeEtcd("storage metrics on etcd", () => {
  let etcd: EtcdProcess;
  let s: EmbeddedTestServer;
  let page: MetricsPage;
  const value = (name: string, labels: Record<string, string> = {}) => page.find(name, labels).reduce((n, x) => n + x.value, 0);

  beforeAll(async () => {
    etcd = await startEtcd({ extraArgs: ["--experimental-watch-progress-notify-interval=200ms"] });
    s = await startTestServer({ storage: "etcd3", options: { etcdServers: [etcd.url], etcd: { ...defaultOptions().etcd, prefix: "/kapi-metrics" } } });
    const event = { metadata: { name: "e1" }, involvedObject: { kind: "Pod", namespace: "default", name: "p" }, reason: "Tested", message: "m", type: "Normal" };
    expect((await req(s, "POST", "/api/v1/namespaces/default/events", { body: event })).status).toBe(201);
    expect((await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "c1" } } })).status).toBe(201);
    // A few progress notifications reach every storage watch.
    const deadline = Date.now() + 10_000;
    for (;;) {
      page = parseMetricsPage((await req(s, "GET", "/metrics")).text);
      if (value("etcd_bookmark_counts", { group: "", resource: "configmaps" }) >= 2 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
    await etcd?.cleanup();
  });

  it("etcd_bookmark_counts and apiserver_storage_events_received_total, by group and resource", () => {
    expect(value("etcd_bookmark_counts", { group: "", resource: "configmaps" })).toBeGreaterThanOrEqual(2);
    expect(page.families.get("etcd_bookmark_counts")?.type).toBe("GAUGE");
    expect(page.families.get("etcd_bookmark_counts")?.help).toMatch(/^\[ALPHA\] \S/);
    for (const x of page.find("etcd_bookmark_counts")) expect(Object.keys(x.labels).sort()).toEqual(["group", "resource"]);
    expect(page.families.get("apiserver_storage_events_received_total")?.type).toBe("COUNTER");
    // The configmap made and the namespace's root CA configmap, as the watch cache received them.
    const received = value("apiserver_storage_events_received_total", { group: "", resource: "configmaps" });
    expect(received).toBeGreaterThanOrEqual(1);
    expect(received).toBe(value("apiserver_watch_cache_events_received_total", { group: "", resource: "configmaps" }));
    expect(value("apiserver_storage_events_received_total", { group: "", resource: "events" })).toBe(1);
  });

  it("etcd_lease_object_counts: one lease granted for the Event, observed with its one key", () => {
    const f = page.families.get("etcd_lease_object_counts");
    expect(f?.type).toBe("HISTOGRAM");
    expect(f!.help).toMatch(/^\[ALPHA\] \S/);
    expect(f!.buckets).toEqual(["10", "50", "100", "500", "1000", "2500", "5000", "+Inf"]);
    expect(page.find("etcd_lease_object_counts_count")[0]?.labels).toEqual({});
    expect(value("etcd_lease_object_counts_count")).toBe(1);
    expect(value("etcd_lease_object_counts_sum")).toBe(1);
  });
});
