// --etcd-servers-overrides: events (core and events.k8s.io, stored together as upstream stores
// them) live in a second etcd cluster of their own, with that cluster's revisions as their
// resourceVersions, while everything else stays in the first; every verb on them works, a
// namespace holding events is emptied and finalized, the second cluster has its own health
// checks (etcd-override-0, etcd-override-readiness-0), and losing it fails those checks only.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EtcdClient } from "../src/storage/etcd3/client.js";
import { asTestServer, runKapi, serveKapi, stopKapi } from "./support/cli.js";
import { parseMetricsPage } from "./support/prometheus-text.js";
import { req, watchEvents, type HttpServer } from "./support/client.js";
import { etcdSkipReason, startEtcd, type EtcdProcess } from "./support/etcd.js";

const describeEtcd = etcdSkipReason ? describe.skip : describe;
if (etcdSkipReason) describe(`--etcd-servers-overrides (skipped: ${etcdSkipReason})`, () => it.skip("needs etcd", () => {}));

const prefix = "/kapi-overrides";

/** The keys under `under` in one etcd, with their mod_revision. */
async function keysIn(etcd: EtcdProcess, under: string): Promise<Map<string, number>> {
  const client = new EtcdClient({ endpoints: [etcd.url], callTimeoutMs: 5000 });
  try {
    const end = Buffer.from(under);
    end[end.length - 1]!++;
    const r = await client.range({ key: Buffer.from(under), range_end: end });
    return new Map(r.kvs.map((kv) => [kv.key.toString(), kv.mod_revision]));
  } finally {
    client.close();
  }
}

const event = (name: string, ns = "default") => ({
  apiVersion: "v1",
  kind: "Event",
  metadata: { name, namespace: ns },
  involvedObject: { kind: "ConfigMap", namespace: ns, name: "c" },
  reason: "Tested",
  message: name,
  type: "Normal",
});

describeEtcd("kapi serve --etcd-servers-overrides=/events#<second etcd>", () => {
  let main: EtcdProcess;
  let second: EtcdProcess;
  let dir: string;
  let proc: ChildProcess | undefined;
  let server: HttpServer;

  beforeAll(async () => {
    [main, second] = await Promise.all([startEtcd(), startEtcd()]);
    dir = mkdtempSync(join(tmpdir(), "kapi-etcd-overrides-"));
    const s = await serveKapi([
      "--storage-backend=etcd3",
      `--etcd-servers=${main.url}`,
      `--etcd-servers-overrides=/events#${second.url},events.k8s.io/events#http://127.0.0.1:1`,
      `--etcd-prefix=${prefix}`,
      "--etcd-healthcheck-timeout=1s",
      "--request-timeout=4s",
      "--secure-port=0",
      "--bind-address=127.0.0.1",
      `--data-dir=${dir}`,
    ]);
    proc = s.proc;
    server = asTestServer(s.url, dir);
  }, 60_000);
  afterAll(async () => {
    await stopKapi(proc);
    await Promise.all([main?.cleanup(), second?.cleanup()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("events are keys of the second etcd (both API groups), at its revisions; other objects stay in the first", async () => {
    const core = await req(server, "POST", "/api/v1/namespaces/default/events", { body: event("core-ev") });
    expect(core.status).toBe(201);
    const viaEvents = await req(server, "POST", "/apis/events.k8s.io/v1/namespaces/default/events", {
      body: { apiVersion: "events.k8s.io/v1", kind: "Event", metadata: { name: "group-ev" }, eventTime: "2025-01-01T00:00:00.000000Z", reportingController: "test/x", reportingInstance: "i", action: "Test", reason: "Tested", regarding: { kind: "ConfigMap", namespace: "default", name: "c" }, type: "Normal" },
    });
    expect(viaEvents.status).toBe(201);
    const cm = await req(server, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "stays" } } });
    expect(cm.status).toBe(201);

    const inSecond = await keysIn(second, `${prefix}/`);
    // events.k8s.io/events is stored as core events (under their key prefix, as upstream stores
    // them): its own override (an unreachable address) names no storage and is ignored.
    expect([...inSecond.keys()].sort()).toEqual([`${prefix}/events/default/core-ev`, `${prefix}/events/default/group-ev`]);
    expect(String(inSecond.get(`${prefix}/events/default/core-ev`))).toBe(core.json.metadata.resourceVersion);
    const inMain = await keysIn(main, `${prefix}/`);
    expect([...inMain.keys()].filter((k) => k.includes("/events"))).toEqual([]);
    expect(String(inMain.get(`${prefix}/configmaps/default/stays`))).toBe(cm.json.metadata.resourceVersion);
  });

  it("every verb works on events: get, list, watch from a resourceVersion, update, delete", async () => {
    const list = await req(server, "GET", "/api/v1/namespaces/default/events");
    expect(list.status).toBe(200);
    // Both API groups' events are the same objects.
    expect(list.json.items.map((e: any) => e.metadata.name)).toEqual(["core-ev", "group-ev"]);
    // The list's resourceVersion is the second cluster's: a watch from it sees what comes next, only that.
    const w = watchEvents(server, `/api/v1/namespaces/default/events?watch=1&resourceVersion=${list.json.metadata.resourceVersion}`, (evs) => evs.length >= 3);
    await w.opened;
    const created = await req(server, "POST", "/api/v1/namespaces/default/events", { body: event("later") });
    expect(created.status).toBe(201);
    const got = await req(server, "GET", "/api/v1/namespaces/default/events/later");
    expect(got.json.message).toBe("later");
    const updated = await req(server, "PUT", "/api/v1/namespaces/default/events/later", { body: { ...got.json, message: "changed" } });
    expect(updated.status).toBe(200);
    const stale = await req(server, "PUT", "/api/v1/namespaces/default/events/later", { body: { ...got.json, message: "stale" } });
    expect(stale.status).toBe(409);
    expect((await req(server, "DELETE", "/api/v1/namespaces/default/events/later")).status).toBe(200);
    expect((await w).map((e) => `${e.type} ${e.object.metadata.name} ${e.object.message}`)).toEqual(["ADDED later later", "MODIFIED later changed", "DELETED later changed"]);
    expect((await keysIn(second, `${prefix}/events/default/later`)).size).toBe(0);
    expect((await req(server, "POST", "/api/v1/namespaces/default/events", { body: event("core-ev2") })).status).toBe(201);
    const paged = await req(server, "GET", "/api/v1/namespaces/default/events?limit=1");
    const rest = await req(server, "GET", `/api/v1/namespaces/default/events?limit=1&continue=${encodeURIComponent(paged.json.metadata.continue)}`);
    expect([...paged.json.items, ...rest.json.items].map((e: any) => e.metadata.name)).toEqual(["core-ev", "core-ev2"]);
    expect((await req(server, "GET", "/apis/events.k8s.io/v1/namespaces/default/events/group-ev")).status).toBe(200);
    const metrics = parseMetricsPage((await req(server, "GET", "/metrics")).text);
    expect(metrics.find("etcd_requests_total", { operation: "create", group: "", resource: "events" })[0]?.value).toBeGreaterThan(0);
    // Each cluster's database: the main one's and the override's.
    expect(metrics.find("apiserver_storage_size_bytes").map((x) => x.labels.storage_cluster_id).sort()).toEqual(["etcd-0", "etcd-1"]);
  });

  it("a namespace holding events is emptied and finalized", async () => {
    expect((await req(server, "POST", "/api/v1/namespaces", { body: { metadata: { name: "with-events" } } })).status).toBe(201);
    for (const n of ["a", "b", "c"]) expect((await req(server, "POST", "/api/v1/namespaces/with-events/events", { body: event(n, "with-events") })).status).toBe(201);
    expect((await req(server, "DELETE", "/api/v1/namespaces/with-events")).status).toBe(200);
    await expect.poll(async () => (await req(server, "GET", "/api/v1/namespaces/with-events")).status, { timeout: 20_000, interval: 200 }).toBe(404);
    expect((await keysIn(second, `${prefix}/events/with-events/`)).size).toBe(0);
  });

  it("the second cluster's health checks: named and excluded as upstream's; losing it fails them and its resources only", async () => {
    const ready = await req(server, "GET", "/readyz?verbose");
    expect(ready.status).toBe(200);
    expect(ready.text).toMatch(/\[\+\]etcd ok\n\[\+\]etcd-readiness ok\n\[\+\]etcd-override-0 ok\n\[\+\]etcd-override-readiness-0 ok\n/);
    const healthz = await req(server, "GET", "/healthz?verbose&exclude=etcd");
    expect(healthz.text).toContain("[+]etcd excluded: ok\n[+]etcd-override-0 excluded with etcd: ok\n");
    expect(healthz.text).not.toContain("warn:");
    expect((await req(server, "GET", "/livez/etcd-override-0")).status).toBe(200);

    await second.stop();
    try {
      await expect.poll(async () => (await req(server, "GET", "/readyz")).status, { timeout: 5000, interval: 100 }).toBe(500);
      const verbose = await req(server, "GET", "/readyz?verbose");
      expect(verbose.text).toContain("[+]etcd ok");
      expect(verbose.text).toContain("[-]etcd-override-0 failed");
      expect(verbose.text).toContain("[-]etcd-override-readiness-0 failed");
      expect((await req(server, "GET", "/readyz?exclude=etcd&exclude=etcd-readiness")).status).toBe(200);
      expect((await req(server, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "while-events-are-away" } } })).status).toBe(201);
      const write = await req(server, "POST", "/api/v1/namespaces/default/events", { body: event("during") });
      expect([503, 504]).toContain(write.status);
    } finally {
      await second.restart();
    }
    await expect.poll(async () => (await req(server, "GET", "/readyz")).status, { timeout: 20_000, interval: 250 }).toBe(200);
    await expect.poll(async () => (await req(server, "POST", "/api/v1/namespaces/default/events", { body: event("after") })).status, { timeout: 20_000, interval: 250 }).toBe(201);
  }, 60_000);

  it("a malformed override is refused at start with upstream's message", async () => {
    const r = await runKapi(["serve", "--storage-backend=etcd3", `--etcd-servers=${main.url}`, "--etcd-servers-overrides=/events/http://127.0.0.1:4002", "--secure-port=0", `--data-dir=${join(dir, "refused")}`]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("--etcd-servers-overrides invalid, must be of format: group/resource#servers, where servers are URLs, semicolon separated");
  });
});
