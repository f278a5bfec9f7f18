// /metrics families of the storage layers against a real server (SQLite storage, secrets
// encrypted at rest with aescbc): the watch cache's (events received and dispatched,
// initialisations, its revision, capacity, read waits), lists served from it, and value
// transformations. The whole page is read by a real Prometheus text parser twice, and each
// family is checked for its type, stability level, labels and buckets, and for having moved with
// the requests made between the two reads.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, watchEvents, type EmbeddedTestServer } from "./support/client.js";
import { parseMetricsPage, type MetricsPage } from "./support/prometheus-text.js";

let s: EmbeddedTestServer;
let before: MetricsPage;
let after: MetricsPage;
/** Configmaps in the namespace when listed (the three made, and the root CA one when its publisher made it). */
let listed = 0;
/** Configmaps in the namespace before the first read of the page. */
let existing = 0;
const ns = "stored";
const cms = `/api/v1/namespaces/${ns}/configmaps`;
const secrets = `/api/v1/namespaces/${ns}/secrets`;
const key = Buffer.alloc(32, 7).toString("base64");
const encryption = `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: ["secrets"]
    providers:
      - aescbc:
          keys:
            - name: k1
              secret: "${key}"
      - identity: {}
`;

const metricsPage = async () => parseMetricsPage((await req(s, "GET", "/metrics")).text);
const sum = (p: MetricsPage, name: string, labels: Record<string, string> = {}) => p.find(name, labels).reduce((n, x) => n + x.value, 0);
const moved = (name: string, labels: Record<string, string> = {}) => sum(after, name, labels) - sum(before, name, labels);

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "kapi-metrics-storage-"));
  writeFileSync(join(dir, "encryption.yaml"), encryption);
  s = await startTestServer({ storage: "sqlite", dataDir: join(dir, "data"), options: { encryptionProviderConfig: join(dir, "encryption.yaml") } });
  expect((await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } })).status).toBe(201);
  // The configmaps' cache is made by the first list.
  const first = await req(s, "GET", cms);
  expect(first.status).toBe(200);
  existing = first.json.items.length;
  await s.settle();
  before = await metricsPage();
  const watch = watchEvents(s, `${cms}?watch=1`, (events) => events.some((e) => e.object?.metadata?.name === "c3"));
  await watch.opened;
  for (const name of ["c1", "c2", "c3"]) expect((await req(s, "POST", cms, { body: { metadata: { name } } })).status).toBe(201);
  await watch;
  // A watch from the first list's revision: the three creates replayed from the cache's history.
  const replayed = watchEvents(s, `${cms}?watch=1&resourceVersion=${first.json.metadata.resourceVersion}`, (events) => events.length >= 3);
  expect((await replayed).map((e) => e.object?.metadata?.name)).toEqual(["c1", "c2", "c3"]);
  listed = (await req(s, "GET", cms)).json.items.length;
  expect((await req(s, "GET", `${cms}?labelSelector=none%3Dsuch`)).json.items).toEqual([]);
  expect((await req(s, "POST", secrets, { body: { metadata: { name: "s1" }, stringData: { a: "b" } } })).status).toBe(201);
  expect((await req(s, "GET", `${secrets}/s1`)).json.data).toEqual({ a: Buffer.from("b").toString("base64") });
  after = await metricsPage();
});
afterAll(async () => {
  await s?.stop();
});

/** The family's type, the stability level its HELP starts with, its label names (le aside), its buckets. */
function expectFamily(name: string, type: string, stability: string, labels: string[], buckets?: string[]): void {
  const f = after.families.get(name);
  expect(f, `${name} on the page`).toBeDefined();
  expect(f!.type, name).toBe(type);
  expect(f!.help, name).toMatch(new RegExp(`^\\[${stability}\\] \\S`));
  const samples = after.find(type === "HISTOGRAM" ? `${name}_count` : name);
  expect(samples.length, `${name} samples`).toBeGreaterThan(0);
  for (const x of samples) expect(Object.keys(x.labels).sort(), name).toEqual([...labels].sort());
  if (buckets) expect(f!.buckets, name).toEqual(buckets);
}

const configmaps = { group: "", resource: "configmaps" };

describe("/metrics storage families (kube-apiserver 1.34's)", () => {
  it("watch cache: events received and dispatched, initialisations, revision, capacity, read waits", () => {
    expectFamily("apiserver_watch_cache_events_received_total", "COUNTER", "ALPHA", ["group", "resource"]);
    expectFamily("apiserver_watch_cache_events_dispatched_total", "COUNTER", "ALPHA", ["group", "resource"]);
    expectFamily("apiserver_watch_cache_initializations_total", "COUNTER", "ALPHA", ["group", "resource"]);
    expectFamily("apiserver_watch_cache_resource_version", "GAUGE", "ALPHA", ["group", "resource"]);
    expectFamily("watch_cache_capacity", "GAUGE", "ALPHA", ["group", "resource"]);
    expectFamily("apiserver_watch_cache_read_wait_seconds", "HISTOGRAM", "ALPHA", ["group", "resource"], ["0.005", "0.025", "0.05", "0.1", "0.2", "0.4", "0.6", "0.8", "1", "1.25", "1.5", "2", "3", "+Inf"]);
    expect(moved("apiserver_watch_cache_events_received_total", configmaps)).toBe(3);
    expect(moved("apiserver_watch_cache_events_dispatched_total", configmaps)).toBe(3);
    // Made once, by the first list, before the first read of the page.
    expect(sum(before, "apiserver_watch_cache_initializations_total", configmaps)).toBeGreaterThanOrEqual(1);
    expect(moved("apiserver_watch_cache_initializations_total", configmaps)).toBe(0);
    expect(sum(after, "apiserver_watch_cache_resource_version", configmaps)).toBeGreaterThan(sum(before, "apiserver_watch_cache_resource_version", configmaps));
    expect(sum(after, "watch_cache_capacity", configmaps)).toBe(100 * 1024);
    // The first watch's initial events (what existed), the second's three replayed.
    expectFamily("apiserver_init_events_total", "COUNTER", "ALPHA", ["group", "resource"]);
    expect(moved("apiserver_init_events_total", configmaps)).toBe(existing + 3);
    // Registered; no watcher was too slow.
    expect(after.families.has("apiserver_terminated_watchers_total")).toBe(false);
    // Each consistent list waits for the cache to reach storage's revision.
    expect(moved("apiserver_watch_cache_read_wait_seconds_count", configmaps)).toBeGreaterThanOrEqual(2);
  });

  it("lists served from the watch cache: lists, objects read and objects returned", () => {
    expectFamily("apiserver_cache_list_total", "COUNTER", "ALPHA", ["group", "resource", "index"]);
    expectFamily("apiserver_cache_list_fetched_objects_total", "COUNTER", "ALPHA", ["group", "resource", "index"]);
    expectFamily("apiserver_cache_list_returned_objects_total", "COUNTER", "ALPHA", ["group", "resource"]);
    expect(moved("apiserver_cache_list_total", { ...configmaps, index: "" })).toBe(2);
    // Both lists read every configmap of the namespace; the one with a selector returned none.
    expect(listed).toBeGreaterThanOrEqual(3);
    expect(moved("apiserver_cache_list_fetched_objects_total", { ...configmaps, index: "" })).toBe(2 * listed);
    expect(moved("apiserver_cache_list_returned_objects_total", configmaps)).toBe(listed);
  });

  it("value transformations: secrets encrypted with aescbc, each counted by resource, direction, prefix and status", () => {
    expectFamily("apiserver_storage_transformation_operations_total", "COUNTER", "ALPHA", ["resource", "transformation_type", "transformer_prefix", "status"]);
    expectFamily("apiserver_storage_transformation_duration_seconds", "HISTOGRAM", "ALPHA", ["transformation_type", "transformer_prefix"]);
    // ExponentialBuckets(5e-6, 2, 25): 5µs to about 84 s.
    const bounds = after.families.get("apiserver_storage_transformation_duration_seconds")!.buckets!;
    expect([bounds.length, ...bounds.slice(0, 3), bounds[24]]).toEqual([26, "5e-06", "1e-05", "2e-05", "83.88608"]);
    // The secret written once: the provider's and its key's transformer each encrypted it.
    expect(moved("apiserver_storage_transformation_operations_total", { resource: "secrets", transformation_type: "to_storage", transformer_prefix: "k8s:enc:aescbc:v1:", status: "OK" })).toBe(1);
    expect(moved("apiserver_storage_transformation_operations_total", { resource: "secrets", transformation_type: "to_storage", transformer_prefix: "k1:", status: "OK" })).toBe(1);
    // ...and decrypted at least once (the watch cache reads it from the write's event).
    expect(moved("apiserver_storage_transformation_operations_total", { resource: "secrets", transformation_type: "from_storage", transformer_prefix: "k8s:enc:aescbc:v1:", status: "OK" })).toBeGreaterThanOrEqual(1);
    // Configmaps are not in the configuration: never transformed.
    expect(after.find("apiserver_storage_transformation_operations_total", { resource: "configmaps" })).toEqual([]);
    expect(moved("apiserver_storage_transformation_duration_seconds_count", { transformation_type: "to_storage", transformer_prefix: "k8s:enc:aescbc:v1:" })).toBe(1);
  });
});

