// /metrics against a real server (SQLite storage, RBAC, token users, a loopback admission
// webhook): one request of each kind, then the whole page read by a real Prometheus text parser
// and each family of kube-apiserver 1.34 checked for its type, the stability level in its HELP,
// its label names and its bucket bounds. The page itself is authorised as the non-resource URL
// /metrics.
import { mkdtempSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deny, patch, startAdmissionWebhookServer, type AdmissionWebhookServer } from "../src/admission/webhook/server.testkit.js";
import { req, startTestServer, watchEvents, type EmbeddedTestServer } from "./support/client.js";
import { parseMetricsPage, type MetricsPage } from "./support/prometheus-text.js";

let s: EmbeddedTestServer;
let hooks: AdmissionWebhookServer;
let page: MetricsPage;
let cpuBeforeScrape: NodeJS.CpuUsage;
const ns = "metered";

const requestLabels = ["verb", "group", "version", "resource", "subresource", "scope", "component"];
const latencyBuckets = ["0.005", "0.025", "0.05", "0.1", "0.2", "0.4", "0.6", "0.8", "1", "1.25", "1.5", "2", "3", "4", "5", "6", "8", "10", "15", "20", "30", "45", "60", "+Inf"];
const sliBuckets = latencyBuckets.slice(2);
const admissionBuckets = ["0.005", "0.025", "0.1", "0.5", "1", "2.5", "+Inf"];
const filterBuckets = ["0.001", "0.002", "0.004", "0.008", "0.016", "0.032", "0.064", "0.128", "0.256", "0.512", "1.024", "2.048", "4.096", "8.192", "16.384", "+Inf"];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "kapi-metrics-"));
  writeFileSync(join(dir, "tokens.csv"), 'monitor-token,monitor,uid-1,"system:monitoring"\nnobody-token,nobody,uid-2\n');
  s = await startTestServer({ storage: "sqlite", dataDir: join(dir, "data"), options: { authorizationMode: ["RBAC"], tokenAuthFile: join(dir, "tokens.csv"), anonymousAuth: false } });
  hooks = await startAdmissionWebhookServer();
  hooks.on("/label", (r) => patch(r, [{ op: "add", path: "/metadata/labels", value: { metered: "yes" } }]));
  hooks.on("/refuse", (r) => (r.request.name.startsWith("bad-") ? deny(r, { code: 403, message: "not this one" }) : { response: { uid: r.request.uid, allowed: true } }));
  const selector = { matchLabels: { "kubernetes.io/metadata.name": ns } };
  const rules = [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }];
  const webhook = (name: string, path: string) => ({ name, clientConfig: { url: hooks.url(path), caBundle: hooks.caBundle }, rules, namespaceSelector: selector, sideEffects: "None", admissionReviewVersions: ["v1"] });
  expect((await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } })).status).toBe(201);
  const made = await Promise.all([
    req(s, "POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", { body: { metadata: { name: "label" }, webhooks: [webhook("label.example.com", "/label")] } }),
    req(s, "POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", { body: { metadata: { name: "refuse" }, webhooks: [webhook("refuse.example.com", "/refuse")] } }),
  ]);
  expect(made.map((r) => r.status)).toEqual([201, 201]);
  // The webhook configurations' informers have them once settled.
  await s.settle();

  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  // create (through both webhooks), get, list, a list read from storage (an exact older revision)
  const created = await req(s, "POST", cms, { body: { metadata: { name: "first" } } });
  expect(created.status).toBe(201);
  expect(created.json.metadata.labels).toEqual({ metered: "yes" });
  expect((await req(s, "GET", `${cms}/first`)).status).toBe(200);
  expect((await req(s, "GET", cms)).status).toBe(200);
  expect((await req(s, "POST", cms, { body: { metadata: { name: "second" } } })).status).toBe(201);
  expect((await req(s, "GET", `${cms}?limit=1&resourceVersion=${created.json.metadata.resourceVersion}&resourceVersionMatch=Exact`)).status).toBe(200);
  // a create the validating webhook refuses
  const refused = await req(s, "POST", cms, { body: { metadata: { name: "bad-one" } } });
  expect(refused.status).toBe(403);
  // a request RBAC refuses, a refused credential, no credential at all
  expect((await req(s, "GET", cms, { creds: s.as("nobody-token") })).status).toBe(403);
  expect((await req(s, "GET", cms, { creds: s.as("no-such-token") })).status).toBe(401);
  expect((await req(s, "GET", cms, { creds: s.anonymous })).status).toBe(401);
  // a watch: open while the page is read once, then ended by the client after an event
  const watch = watchEvents(s, `${cms}?watch=1`, (events) => events.some((e) => e.object?.metadata?.name === "third"));
  await watch.opened;
  const during = parseMetricsPage((await req(s, "GET", "/metrics")).text);
  expect(during.find("apiserver_longrunning_requests", { verb: "WATCH", resource: "configmaps", scope: "namespace", component: "apiserver" })[0]?.value).toBe(1);
  expect((await req(s, "POST", cms, { body: { metadata: { name: "third" } } })).status).toBe(201);
  expect((await watch).length).toBeGreaterThanOrEqual(3);

  // a patch and a delete (their bodies counted), and a connection that is not TLS at all
  expect((await req(s, "PATCH", `${cms}/second`, { body: { metadata: { labels: { patched: "yes" } } }, headers: { "content-type": "application/merge-patch+json" } })).status).toBe(200);
  expect((await req(s, "DELETE", `${cms}/second`, { body: { kind: "DeleteOptions", apiVersion: "v1", gracePeriodSeconds: 0 } })).status).toBe(200);
  await notTls(new URL(s.url));

  cpuBeforeScrape = process.cpuUsage();
  const res = await req(s, "GET", "/metrics", { creds: s.as("monitor-token") });
  expect(res.status).toBe(200);
  expect(String(res.headers["content-type"])).toBe("text/plain; version=0.0.4; charset=utf-8");
  page = parseMetricsPage(res.text);
});
afterAll(async () => {
  await s?.stop();
  await hooks?.close();
});

/** Writes plain HTTP where the server expects a TLS handshake, and waits for the server to hang up. */
function notTls(url: URL): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    socket.on("error", reject);
    socket.on("close", () => resolve());
    socket.resume();
  });
}

/** The family's type, the stability level its HELP starts with, its label names (le aside), its buckets. */
function expectFamily(name: string, type: string, stability: string | undefined, labels: string[], buckets?: string[]): void {
  const f = page.families.get(name);
  expect(f, `${name} on the page`).toBeDefined();
  expect(f!.type, name).toBe(type);
  if (stability) expect(f!.help, name).toMatch(new RegExp(`^\\[${stability}\\] \\S`));
  else expect(f!.help, name).not.toMatch(/^\[/);
  const sampleName = type === "HISTOGRAM" ? `${name}_count` : type === "SUMMARY" ? `${name}_sum` : name;
  const samples = page.find(sampleName);
  expect(samples.length, `${name} samples`).toBeGreaterThan(0);
  for (const x of samples) expect(Object.keys(x.labels).sort(), name).toEqual([...labels].sort());
  if (buckets) expect(f!.buckets, name).toEqual(buckets);
}

const value = (name: string, labels: Record<string, string>) => page.find(name, labels).reduce((n, x) => n + x.value, 0);

describe("/metrics families (kube-apiserver 1.34's)", () => {
  it("requests: counts by verb, scope and code, latencies, read sizes, in flight", () => {
    expectFamily("apiserver_request_total", "COUNTER", "STABLE", [...requestLabels, "dry_run", "code"]);
    expectFamily("apiserver_request_duration_seconds", "HISTOGRAM", "STABLE", [...requestLabels, "dry_run"], latencyBuckets);
    expectFamily("apiserver_request_sli_duration_seconds", "HISTOGRAM", "ALPHA", requestLabels, sliBuckets);
    expectFamily("apiserver_response_sizes", "HISTOGRAM", "STABLE", requestLabels, ["1000", "10000", "100000", "1e+06", "1e+07", "1e+08", "1e+09", "+Inf"]);
    expectFamily("apiserver_longrunning_requests", "GAUGE", "STABLE", requestLabels);
    expectFamily("apiserver_current_inflight_requests", "GAUGE", "STABLE", ["request_kind"]);
    const cm = { group: "", version: "v1", resource: "configmaps", component: "apiserver", dry_run: "" };
    expect(value("apiserver_request_total", { ...cm, verb: "POST", scope: "resource", code: "201" })).toBe(3);
    expect(value("apiserver_request_total", { ...cm, verb: "POST", scope: "resource", code: "403" })).toBe(1);
    expect(value("apiserver_request_total", { ...cm, verb: "GET", scope: "resource", code: "200" })).toBe(1);
    expect(value("apiserver_request_total", { ...cm, verb: "LIST", scope: "namespace", code: "200" })).toBe(2);
    // 401s and the RBAC refusal are counted as the client got them
    expect(value("apiserver_request_total", { ...cm, verb: "LIST", scope: "namespace", code: "401" })).toBe(2);
    expect(value("apiserver_request_total", { ...cm, verb: "LIST", scope: "namespace", code: "403" })).toBe(1);
    expect(value("apiserver_response_sizes_count", { resource: "configmaps", verb: "GET", scope: "resource" })).toBe(1);
    // every list answered: the two served, the two 401s and the 403
    expect(value("apiserver_response_sizes_count", { resource: "configmaps", verb: "LIST" })).toBe(5);
    expect(page.find("apiserver_response_sizes_count", { verb: "POST" })).toEqual([]);
    // Deprecated in 1.27 and hidden since: not on the page.
    expect(page.families.has("apiserver_request_slo_duration_seconds")).toBe(false);
  });

  it("the request path: each filter's own time, write body sizes, failed TLS handshakes", () => {
    expectFamily("apiserver_request_filter_duration_seconds", "HISTOGRAM", "ALPHA", ["filter"], ["0.0001", "0.0003", "0.001", "0.003", "0.01", "0.03", "0.1", "0.3", "1", "5", "10", "15", "30", "+Inf"]);
    // Every stage upstream times, priority and fairness included (it is on); each request that got past it once.
    const filters = page.find("apiserver_request_filter_duration_seconds_count");
    expect(new Set(filters.map((x) => x.labels.filter))).toEqual(new Set(["authentication", "audit", "impersonation", "priorityandfairness", "authorization"]));
    // The two 401s stop at authentication, the 403 from RBAC at authorization: fewer handed on.
    const handedOn = (filter: string) => value("apiserver_request_filter_duration_seconds_count", { filter });
    expect(handedOn("authentication")).toBeGreaterThan(handedOn("authorization"));
    expect(handedOn("audit")).toBe(handedOn("authentication"));
    const bodyBuckets = page.families.get("apiserver_request_body_size_bytes")?.buckets;
    expectFamily("apiserver_request_body_size_bytes", "HISTOGRAM", "ALPHA", ["group", "resource", "verb"]);
    expect(bodyBuckets?.length).toBe(32);
    expect(bodyBuckets?.slice(0, 3)).toEqual(["50000", "150000", "250000"]);
    expect(bodyBuckets?.at(-2)).toBe("3.05e+06");
    // Four creates read their body (the refused one too: admission comes after), one patch, one delete.
    expect(value("apiserver_request_body_size_bytes_count", { group: "", resource: "configmaps", verb: "create" })).toBe(4);
    expect(value("apiserver_request_body_size_bytes_count", { group: "", resource: "configmaps", verb: "patch" })).toBe(1);
    expect(value("apiserver_request_body_size_bytes_count", { group: "", resource: "configmaps", verb: "delete" })).toBe(1);
    expect(value("apiserver_request_body_size_bytes_sum", { resource: "configmaps", verb: "patch" })).toBe(JSON.stringify({ metadata: { labels: { patched: "yes" } } }).length);
    expectFamily("apiserver_tls_handshake_errors_total", "COUNTER", "ALPHA", []);
    expect(value("apiserver_tls_handshake_errors_total", {})).toBe(1);
    // No request came from the server itself: the family has no series yet.
    expect(page.families.has("apiserver_selfrequest_total")).toBe(false);
  });

  it("watches: events sent and their sizes; the watch counted once the client left", async () => {
    expectFamily("apiserver_watch_events_total", "COUNTER", "ALPHA", ["group", "version", "resource"]);
    expectFamily("apiserver_watch_events_sizes", "HISTOGRAM", "ALPHA", ["group", "version", "resource"], ["1024", "2048", "4096", "8192", "16384", "32768", "65536", "131072", "+Inf"]);
    expect(value("apiserver_watch_events_total", { group: "", version: "v1", resource: "configmaps" })).toBeGreaterThanOrEqual(3);
    // The server hears of the client's leaving when its side of the connection closes.
    const watchLabels = { verb: "WATCH", resource: "configmaps", scope: "namespace" };
    await expect
      .poll(async () => {
        const p = parseMetricsPage((await req(s, "GET", "/metrics")).text);
        return [p.find("apiserver_longrunning_requests", watchLabels)[0]?.value, p.find("apiserver_request_total", { ...watchLabels, code: "200" })[0]?.value];
      })
      .toEqual([0, 1]);
  });

  it("storage: objects, size, lists read from storage, SQLite requests", () => {
    expectFamily("apiserver_storage_objects", "GAUGE", "STABLE", ["resource"]);
    expectFamily("apiserver_resource_objects", "GAUGE", "ALPHA", ["group", "resource"]);
    expectFamily("apiserver_storage_size_bytes", "GAUGE", "STABLE", ["storage_cluster_id"]);
    expectFamily("apiserver_storage_list_total", "COUNTER", "ALPHA", ["group", "resource"]);
    expectFamily("apiserver_storage_list_fetched_objects_total", "COUNTER", "ALPHA", ["group", "resource"]);
    expectFamily("apiserver_storage_list_evaluated_objects_total", "COUNTER", "ALPHA", ["group", "resource"]);
    expectFamily("apiserver_storage_list_returned_objects_total", "COUNTER", "ALPHA", ["group", "resource"]);
    expectFamily("sqlite_request_duration_seconds", "HISTOGRAM", "ALPHA", ["operation", "group", "resource"], latencyBuckets);
    expectFamily("sqlite_requests_total", "COUNTER", "ALPHA", ["operation", "group", "resource"]);
    expect(value("apiserver_storage_objects", { resource: "configmaps" })).toBeGreaterThanOrEqual(3);
    expect(value("apiserver_resource_objects", { group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations" })).toBe(1);
    expect(value("apiserver_storage_size_bytes", { storage_cluster_id: "sqlite-0" })).toBeGreaterThan(0);
    expect(value("apiserver_storage_list_total", { group: "", resource: "configmaps" })).toBeGreaterThanOrEqual(1);
    expect(value("apiserver_storage_list_returned_objects_total", { group: "", resource: "configmaps" })).toBeGreaterThanOrEqual(1);
    expect(value("sqlite_requests_total", { operation: "create", group: "", resource: "configmaps" })).toBeGreaterThanOrEqual(3);
    // Deprecated in 1.28 and hidden since.
    expect(page.families.has("apiserver_storage_db_total_size_in_bytes")).toBe(false);
    // What the watch cache's storage watch received (the three creates, the patch, the delete and
    // each namespace's root CA configmap): each one the cache received.
    expectFamily("apiserver_storage_events_received_total", "COUNTER", "ALPHA", ["group", "resource"]);
    // The plain lists of configmaps were consistent reads the cache answered (the 401s never got there).
    expectFamily("apiserver_watch_cache_consistent_read_total", "COUNTER", "ALPHA", ["group", "resource", "success", "fallback"]);
    expect(value("apiserver_watch_cache_consistent_read_total", { group: "", resource: "configmaps", success: "true", fallback: "false" })).toBeGreaterThanOrEqual(1);
    expect(value("apiserver_watch_cache_consistent_read_total", { success: "false" })).toBe(0);
    const configmapEvents = value("apiserver_storage_events_received_total", { group: "", resource: "configmaps" });
    expect(configmapEvents).toBeGreaterThanOrEqual(5);
    expect(configmapEvents).toBe(value("apiserver_watch_cache_events_received_total", { group: "", resource: "configmaps" }));
    expect(value("apiserver_storage_events_received_total", { group: "", resource: "namespaces" })).toBeGreaterThanOrEqual(1);
  });

  it("admission: steps, plugins, webhook calls and the rejection", () => {
    expectFamily("apiserver_admission_step_admission_duration_seconds", "HISTOGRAM", "STABLE", ["type", "operation", "rejected"], admissionBuckets);
    expectFamily("apiserver_admission_step_admission_duration_seconds_summary", "SUMMARY", "ALPHA", ["type", "operation", "rejected"]);
    expectFamily("apiserver_admission_controller_admission_duration_seconds", "HISTOGRAM", "STABLE", ["name", "type", "operation", "rejected"], admissionBuckets);
    expectFamily("apiserver_admission_webhook_admission_duration_seconds", "HISTOGRAM", "STABLE", ["name", "type", "operation", "rejected"], ["0.005", "0.025", "0.1", "0.5", "1", "2.5", "10", "25", "+Inf"]);
    expectFamily("apiserver_admission_webhook_rejection_count", "COUNTER", "ALPHA", ["name", "type", "operation", "error_type", "rejection_code"]);
    expectFamily("apiserver_admission_webhook_request_total", "COUNTER", "ALPHA", ["name", "type", "operation", "code", "rejected"]);
    expect(value("apiserver_admission_webhook_admission_duration_seconds_count", { name: "label.example.com", type: "admit", operation: "CREATE", rejected: "false" })).toBe(4);
    expect(value("apiserver_admission_webhook_request_total", { name: "refuse.example.com", type: "validating", code: "200", rejected: "false" })).toBe(3);
    expect(value("apiserver_admission_webhook_rejection_count", { name: "refuse.example.com", type: "validating", operation: "CREATE", error_type: "no_error", rejection_code: "403" })).toBe(1);
    expect(value("apiserver_admission_controller_admission_duration_seconds_count", { name: "ValidatingAdmissionWebhook", type: "validate", operation: "CREATE", rejected: "true" })).toBe(1);
    expect(value("apiserver_admission_step_admission_duration_seconds_count", { type: "validate", operation: "CREATE", rejected: "true" })).toBe(1);
  });

  it("authentication and authorization: attempts by result, their duration, users by category", () => {
    expectFamily("authentication_attempts", "COUNTER", "ALPHA", ["result"]);
    expectFamily("authentication_duration_seconds", "HISTOGRAM", "ALPHA", ["result"], filterBuckets);
    expectFamily("authenticated_user_requests", "COUNTER", "ALPHA", ["username"]);
    expectFamily("authorization_attempts_total", "COUNTER", "ALPHA", ["result"]);
    expectFamily("authorization_duration_seconds", "HISTOGRAM", "ALPHA", ["result"], filterBuckets);
    expectFamily("apiserver_authorization_decisions_total", "COUNTER", "ALPHA", ["type", "name", "decision"]);
    expect(value("authentication_attempts", { result: "error" })).toBe(1);
    expect(value("authentication_attempts", { result: "failure" })).toBe(1);
    expect(value("authentication_attempts", { result: "success" })).toBeGreaterThan(5);
    expect(value("authenticated_user_requests", { username: "other" })).toBeGreaterThan(5);
    // "nobody" listing configmaps: RBAC has no rule for it, which upstream counts as no opinion
    expect(value("authorization_attempts_total", { result: "no-opinion" })).toBe(1);
    expect(value("authorization_attempts_total", { result: "allowed" })).toBeGreaterThan(5);
  });

  it("declarative validation, the registry's own, process and runtime", () => {
    expectFamily("apiserver_validation_declarative_validation_mismatch_total", "COUNTER", "BETA", []);
    expect(value("apiserver_validation_declarative_validation_mismatch_total", {})).toBe(0);
    expectFamily("registered_metrics_total", "COUNTER", "BETA", ["stability_level", "deprecated_version"]);
    expectFamily("hidden_metrics_total", "COUNTER", "BETA", []);
    // apiserver_request_slo_duration_seconds, apiserver_storage_db_total_size_in_bytes and the two
    // apiserver_flowcontrol_request_concurrency_* families, deprecated in 1.27, 1.28, 1.30 and 1.31
    expect(value("hidden_metrics_total", {})).toBe(4);
    for (const hidden of ["apiserver_flowcontrol_request_concurrency_limit", "apiserver_flowcontrol_request_concurrency_in_use"]) expect(page.families.has(hidden), hidden).toBe(false);
    expectFamily("apiserver_flowcontrol_dispatched_requests_total", "COUNTER", "BETA", ["priority_level", "flow_schema"]);
    for (const [name, type] of [
      ["process_resident_memory_bytes", "GAUGE"],
      ["process_cpu_seconds_total", "COUNTER"],
      ["process_open_fds", "GAUGE"],
      ["process_max_fds", "GAUGE"],
      ["process_start_time_seconds", "GAUGE"],
      ["nodejs_heap_size_used_bytes", "GAUGE"],
      ["nodejs_eventloop_lag_seconds", "GAUGE"],
    ] as const) {
      expectFamily(name, type, undefined, []);
      expect(value(name, {}), name).toBeGreaterThanOrEqual(name === "nodejs_eventloop_lag_seconds" ? 0 : 1e-9);
    }
    // The process's whole CPU time, as client_golang's collector reads it (this server runs in the test's process).
    expect(value("process_cpu_seconds_total", {})).toBeGreaterThanOrEqual((cpuBeforeScrape.user + cpuBeforeScrape.system) / 1e6);
    expect(value("process_cpu_user_seconds_total", {})).toBeGreaterThanOrEqual(cpuBeforeScrape.user / 1e6);
  });

  it("priority and fairness: the timing ratio histograms, in nanoseconds spent at each ratio", () => {
    const families: [string, string[], string[]][] = [
      ["apiserver_flowcontrol_priority_level_seat_utilization", ["phase", "priority_level"], ["0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "0.95", "0.99", "1", "+Inf"]],
      ["apiserver_flowcontrol_priority_level_request_utilization", ["phase", "priority_level"], ["0", "0.001", "0.003", "0.01", "0.03", "0.1", "0.25", "0.5", "0.75", "1", "+Inf"]],
      ["apiserver_flowcontrol_read_vs_write_current_requests", ["phase", "request_kind"], ["0", "0.001", "0.01", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "0.95", "0.99", "1", "+Inf"]],
      ["apiserver_flowcontrol_demand_seats", ["priority_level"], ["0.2", "0.4", "0.6", "0.8", "1", "1.2", "1.4", "1.7", "2", "2.8", "4", "6", "+Inf"]],
    ];
    for (const [name, labels, buckets] of families) {
      const f = page.families.get(name);
      expect(f?.type, name).toBe("HISTOGRAM");
      // component-base's timing histograms wrap the annotated HELP so.
      expect(f!.help, name).toMatch(/^EXPERIMENTAL: \[ALPHA\] Observations, at the end of every nanosecond, of /);
      expect(f!.buckets, name).toEqual(buckets);
      for (const x of page.find(`${name}_count`)) expect(Object.keys(x.labels).sort(), name).toEqual([...labels].sort());
    }
    // Seat utilization is only ever of the executing phase.
    expect(new Set(page.find("apiserver_flowcontrol_priority_level_seat_utilization_count").map((x) => x.labels.phase))).toEqual(new Set(["executing"]));
    // Every request kind and phase has its series, counting the nanoseconds since the server started.
    const rw = (phase: string, request_kind: string) => value("apiserver_flowcontrol_read_vs_write_current_requests_count", { phase, request_kind });
    for (const phase of ["waiting", "executing"]) for (const kind of ["readOnly", "mutating"]) expect(rw(phase, kind), `${phase} ${kind}`).toBeGreaterThan(1e6);
    // Requests executed, so some of that time was spent above zero: the sum (ratio × ns) is positive.
    expect(value("apiserver_flowcontrol_read_vs_write_current_requests_sum", { phase: "executing", request_kind: "readOnly" })).toBeGreaterThan(0);
    expect(value("apiserver_flowcontrol_priority_level_request_utilization_sum", { phase: "executing" })).toBeGreaterThan(0);
    expect(value("apiserver_flowcontrol_priority_level_seat_utilization_sum", {})).toBeGreaterThan(0);
    expect(value("apiserver_flowcontrol_demand_seats_sum", {})).toBeGreaterThan(0);
  });

  it("is authorised as the non-resource URL /metrics", async () => {
    const nobody = await req(s, "GET", "/metrics", { creds: s.as("nobody-token") });
    expect(nobody.status).toBe(403);
    expect(nobody.json.message).toBe('forbidden: User "nobody" cannot get path "/metrics"');
  });
});

describe("hidden metrics", () => {
  it("--show-hidden-metrics-for-version=1.33 shows the deprecated ones, HELP saying since when", async () => {
    const t = await startTestServer({ storage: "memory", options: { showHiddenMetricsForVersion: "1.33" } });
    try {
      await req(t, "GET", "/api/v1/namespaces");
      const p = parseMetricsPage((await req(t, "GET", "/metrics")).text);
      expect(p.families.get("apiserver_request_slo_duration_seconds")?.help).toMatch(/^\[ALPHA\] \(Deprecated since 1\.27\.0\) How long requests took to answer/);
      expect(p.families.get("apiserver_request_slo_duration_seconds")?.buckets).toEqual(sliBuckets);
      expect(p.find("hidden_metrics_total")[0]?.value).toBe(0);
      expect(p.families.get("apiserver_flowcontrol_request_concurrency_limit")?.help).toMatch(/^\[ALPHA\] \(Deprecated since 1\.30\.0\) /);
    } finally {
      await t.stop();
    }
  });

  it("only the previous minor release is taken; --disabled-metrics hides a family", async () => {
    await expect(startTestServer({ storage: "memory", options: { showHiddenMetricsForVersion: "1.32" } })).rejects.toThrow("--show-hidden-metrics-for-version must be omitted or have the value '1.33'. Only the previous minor version is allowed");
    const t = await startTestServer({ storage: "memory", options: { disabledMetrics: ["apiserver_request_total"] } });
    try {
      const p = parseMetricsPage((await req(t, "GET", "/metrics")).text);
      expect(p.families.has("apiserver_request_total")).toBe(false);
      expect(p.families.has("apiserver_request_duration_seconds")).toBe(true);
      expect(p.find("disabled_metrics_total")[0]?.value).toBe(1);
    } finally {
      await t.stop();
    }
  });
});
