// /metrics of a server running max-in-flight (priority and fairness off) and the WatchList gate:
// read_vs_write_current_requests fed by the max-in-flight limit, a watch list's latency to its
// initial-events-end bookmark, and requests the server's own user makes counted as self
// requests — each family read from the page by a real Prometheus text parser.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, watchEvents, type EmbeddedTestServer } from "./support/client.js";
import { parseMetricsPage, type MetricsPage } from "./support/prometheus-text.js";

let s: EmbeddedTestServer;
let page: MetricsPage;
const ns = "selfish";

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "kapi-metrics-path-"));
  writeFileSync(join(dir, "tokens.csv"), 'self-token,system:apiserver,uid-self,"system:masters"\n');
  s = await startTestServer({ storage: "memory", options: { enablePriorityAndFairness: false, featureGates: "WatchList=true", tokenAuthFile: join(dir, "tokens.csv") } });
  const self = s.as("self-token");
  expect((await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: ns } }, creds: self })).status).toBe(201);
  expect((await req(s, "GET", `/api/v1/namespaces/${ns}`, { creds: self })).status).toBe(200);
  expect((await req(s, "GET", "/api/v1/namespaces")).status).toBe(200);
  // A watch list: the state as ADDED events, then the initial-events-end bookmark.
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  const watch = watchEvents(s, `${cms}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`, (events) =>
    events.some((e) => e.type === "BOOKMARK" && e.object?.metadata?.annotations?.["k8s.io/initial-events-end"] === "true"),
  );
  await watch;
  page = parseMetricsPage((await req(s, "GET", "/metrics")).text);
});
afterAll(async () => {
  await s?.stop();
});

const value = (name: string, labels: Record<string, string>) => page.find(name, labels).reduce((n, x) => n + x.value, 0);

describe("/metrics with max-in-flight", () => {
  it("read_vs_write_current_requests: the executing requests of each kind over its limit", () => {
    const f = page.families.get("apiserver_flowcontrol_read_vs_write_current_requests");
    expect(f?.type).toBe("HISTOGRAM");
    expect(f!.help).toMatch(/^EXPERIMENTAL: \[ALPHA\] /);
    expect(f!.buckets).toEqual(["0", "0.001", "0.01", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "0.95", "0.99", "1", "+Inf"]);
    // Only the executing phase: max-in-flight queues nothing.
    const series = page.find("apiserver_flowcontrol_read_vs_write_current_requests_count");
    expect(series.map((x) => `${x.labels.phase}/${x.labels.request_kind}`).sort()).toEqual(["executing/mutating", "executing/readOnly"]);
    for (const x of series) expect(x.value, x.labels.request_kind).toBeGreaterThan(1e6);
    // Requests of both kinds executed: time was spent above zero (a share of 400 or 200 seats).
    for (const request_kind of ["readOnly", "mutating"]) expect(value("apiserver_flowcontrol_read_vs_write_current_requests_sum", { phase: "executing", request_kind }), request_kind).toBeGreaterThan(0);
    // Priority and fairness is off: no filter latency for it, the others still timed.
    const filters = new Set(page.find("apiserver_request_filter_duration_seconds_count").map((x) => x.labels.filter));
    expect(filters).toEqual(new Set(["authentication", "audit", "impersonation", "authorization"]));
  });

  it("apiserver_selfrequest_total: requests authenticated as system:apiserver", () => {
    const f = page.families.get("apiserver_selfrequest_total");
    expect(f?.type).toBe("COUNTER");
    expect(f!.help).toMatch(/^\[ALPHA\] \S/);
    for (const x of page.find("apiserver_selfrequest_total")) expect(Object.keys(x.labels).sort()).toEqual(["group", "resource", "subresource", "verb"]);
    expect(value("apiserver_selfrequest_total", { verb: "POST", group: "", resource: "namespaces", subresource: "" })).toBe(1);
    expect(value("apiserver_selfrequest_total", { verb: "GET", resource: "namespaces" })).toBe(1);
    // The admin's list is not the server's own.
    expect(value("apiserver_selfrequest_total", { verb: "LIST" })).toBe(0);
  });

  it("apiserver_watch_list_duration_seconds: a watch list's time to its initial-events-end bookmark", () => {
    const f = page.families.get("apiserver_watch_list_duration_seconds");
    expect(f?.type).toBe("HISTOGRAM");
    expect(f!.help).toMatch(/^\[ALPHA\] \S/);
    expect(f!.buckets).toEqual(["0.05", "0.1", "0.2", "0.4", "0.6", "0.8", "1", "2", "4", "6", "8", "10", "15", "20", "30", "45", "60", "+Inf"]);
    const [x, ...more] = page.find("apiserver_watch_list_duration_seconds_count");
    expect(more).toEqual([]);
    expect(x?.labels).toEqual({ group: "", version: "v1", resource: "configmaps", scope: "namespace" });
    expect(x?.value).toBe(1);
  });
});
