// kapi serve on a real etcd (--storage-backend=etcd3): objects are etcd keys under --etcd-prefix,
// lists page with continue tokens, watches resume from a resourceVersion, a restarted kapi finds
// its data, and losing etcd shows in /readyz and in requests until etcd returns.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCA, createLeaf } from "../src/authn/certs.js";
import { asTestServer, runKapi, serveKapi } from "./support/cli.js";
import { parseMetricsPage } from "./support/prometheus-text.js";
import { req, watchEvents, type HttpServer } from "./support/client.js";
import { etcdSkipReason, startEtcd, type EtcdProcess } from "./support/etcd.js";

const describeEtcd = etcdSkipReason ? describe.skip : describe;
if (etcdSkipReason) describe(`kapi on etcd (skipped: ${etcdSkipReason})`, () => it.skip("needs etcd", () => {}));

describeEtcd("kapi serve --storage-backend=etcd3", () => {
  let etcd: EtcdProcess;
  let dataDir: string;
  let proc: ChildProcess | undefined;
  let server: HttpServer;

  const start = async (...extra: string[]) => {
    const s = await serveKapi(["--storage-backend=etcd3", `--etcd-servers=${etcd.url}`, "--etcd-prefix=/kapi-it", "--secure-port=0", "--bind-address=127.0.0.1", `--data-dir=${dataDir}`, "--request-timeout=4s", "--etcd-healthcheck-timeout=1s", "--etcd-count-metric-poll-period=500ms", ...extra]);
    proc = s.proc;
    server = asTestServer(s.url, dataDir);
  };
  const stop = async () => {
    const p = proc!;
    proc = undefined;
    const exited = new Promise((r) => p.once("exit", r));
    p.kill("SIGTERM");
    await exited;
  };

  beforeAll(async () => {
    etcd = await startEtcd();
    dataDir = mkdtempSync(join(tmpdir(), "kapi-etcd-it-"));
    await start();
  }, 60_000);
  afterAll(async () => {
    if (proc) await stop();
    await etcd?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: name } });

  it("creates, pages through a list with continue, and resumes a watch from a resourceVersion", async () => {
    const created = [];
    for (const n of ["a", "b", "c", "d", "e"]) {
      const r = await req(server, "POST", "/api/v1/namespaces/default/configmaps", { body: cm(n) });
      expect(r.status).toBe(201);
      created.push(r.json);
    }
    const dup = await req(server, "POST", "/api/v1/namespaces/default/configmaps", { body: cm("a") });
    expect([dup.status, dup.json.reason]).toEqual([409, "AlreadyExists"]);
    // resourceVersion is etcd's mod_revision: strictly increasing across the creates.
    const rvs = created.map((o) => Number(o.metadata.resourceVersion));
    expect(rvs).toEqual([...rvs].sort((x, y) => x - y));

    const names: string[] = [];
    let cont = "";
    let pages = 0;
    do {
      const r = await req(server, "GET", `/api/v1/namespaces/default/configmaps?limit=2${cont ? `&continue=${encodeURIComponent(cont)}` : ""}`);
      expect(r.status).toBe(200);
      names.push(...r.json.items.map((i: any) => i.metadata.name).filter((n: string) => n !== "kube-root-ca.crt"));
      cont = r.json.metadata.continue ?? "";
      pages++;
      // A write between pages is not seen: continued pages read the list's revision.
      if (pages === 1) expect((await req(server, "POST", "/api/v1/namespaces/default/configmaps", { body: cm("aa") })).status).toBe(201);
    } while (cont);
    expect(names).toEqual(["a", "b", "c", "d", "e"]);

    const from = created[2].metadata.resourceVersion;
    // The root CA publisher's kube-root-ca.crt may land among them when controllers start late.
    const ours = (events: any[]) => events.map((e) => `${e.type} ${e.object.metadata.name}`).filter((e) => !e.endsWith(" kube-root-ca.crt"));
    const events = await watchEvents(server, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${from}`, (ev) => ours(ev).length >= 3);
    expect(ours(events)).toEqual(["ADDED d", "ADDED e", "ADDED aa"]);

    const update = await req(server, "PUT", "/api/v1/namespaces/default/configmaps/a", { body: { ...created[0], data: { k: "new" } } });
    expect(update.status).toBe(200);
    const stale = await req(server, "PUT", "/api/v1/namespaces/default/configmaps/a", { body: { ...created[0], data: { k: "stale" } } });
    expect([stale.status, stale.json.reason]).toEqual([409, "Conflict"]);
  }, 60_000);

  it("/metrics: etcd request latency per operation and resource, object counts from the count poll, the database's size", async () => {
    await expect
      .poll(async () => (await req(server, "GET", "/metrics")).text, { timeout: 10_000, interval: 250 })
      .toMatch(/apiserver_storage_objects\{resource="configmaps"\} ([6-9]|\d\d)\n/);
    const page = parseMetricsPage((await req(server, "GET", "/metrics")).text);
    const cm = { group: "", resource: "configmaps" };
    expect(page.find("etcd_request_duration_seconds_count", { ...cm, operation: "create" })[0]?.value).toBeGreaterThan(0);
    expect(page.find("etcd_requests_total", { ...cm, operation: "update" })[0]?.value).toBeGreaterThan(0);
    expect(page.families.get("etcd_request_duration_seconds")?.buckets?.slice(0, 2)).toEqual(["0.005", "0.025"]);
    expect(page.families.get("etcd_requests_total")?.help).toBe("[ALPHA] Etcd requests, by operation and the group and resource of the key.");
    expect(page.find("apiserver_storage_size_bytes", { storage_cluster_id: "etcd-0" })[0]?.value).toBeGreaterThan(0);
    expect(page.families.has("sqlite_requests_total")).toBe(false);
  });

  // Upstream's create is one transaction (a put on create_revision = 0). A GET without a
  // resourceVersion of a type no watch cache holds yet (nothing lists or watches PodTemplates
  // here) is one read of etcd; where a cache runs, GETs share its progress rounds instead
  // (test/etcd-cached-get.test.ts).
  it("a create costs one etcd transaction and a GET of an uncached type one etcd read", async () => {
    const calls = async () => {
      const page = parseMetricsPage((await req(server, "GET", "/metrics")).text);
      const counts: Record<string, number> = {};
      for (const m of page.find("etcd_requests_total", { group: "", resource: "podtemplates" })) counts[m.labels.operation!] = m.value;
      // The object-count poll reads every resource on its own schedule.
      delete counts.listWithCount;
      return counts;
    };
    const before = await calls();
    const template = (name: string) => ({ apiVersion: "v1", kind: "PodTemplate", metadata: { name }, template: { spec: { containers: [{ name: "c", image: "busybox" }] } } });
    for (let i = 0; i < 5; i++) expect((await req(server, "POST", "/api/v1/namespaces/default/podtemplates", { body: template(`t${i}`) })).status).toBe(201);
    for (let i = 0; i < 5; i++) for (let j = 0; j < 3; j++) expect((await req(server, "GET", `/api/v1/namespaces/default/podtemplates/t${i}`)).status).toBe(200);
    const after = await calls();
    const delta = Object.fromEntries(Object.entries(after).map(([op, n]) => [op, n - (before[op] ?? 0)]).filter(([, n]) => n !== 0));
    expect(delta).toEqual({ create: 5, get: 15 });
  });

  it("/readyz?verbose names the etcd and etcd-readiness checks", async () => {
    const r = await req(server, "GET", "/readyz?verbose");
    expect(r.status).toBe(200);
    expect(r.text).toContain("[+]etcd ok");
    expect(r.text).toContain("[+]etcd-readiness ok");
  });

  it("a restarted kapi on the same etcd serves the same objects at the same resourceVersions; history compacted away answers 410", async () => {
    const before = await req(server, "GET", "/api/v1/namespaces/default/configmaps/b");
    const page = await req(server, "GET", "/api/v1/namespaces/default/configmaps?limit=1");
    const oldRv = before.json.metadata.resourceVersion;
    await stop();
    // Compaction every 500 ms: after two intervals etcd has dropped the history before the restart.
    await start("--etcd-compaction-interval=500ms");
    const after = await req(server, "GET", "/api/v1/namespaces/default/configmaps/b");
    expect(after.status).toBe(200);
    expect(after.json.metadata.resourceVersion).toBe(before.json.metadata.resourceVersion);
    expect(after.json.data).toEqual({ k: "b" });
    expect((await req(server, "POST", "/api/v1/namespaces/default/configmaps", { body: cm("after-restart") })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1500));
    // A fresh start's watch caches begin at etcd's compacted revision: older versions are gone.
    await stop();
    await start();
    const watch = await req(server, "GET", `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${oldRv}&timeoutSeconds=1`);
    expect(watch.text).toMatch(/"code":410/);
    const cont = await req(server, "GET", `/api/v1/namespaces/default/configmaps?limit=1&continue=${encodeURIComponent(page.json.metadata.continue)}`);
    expect([cont.status, cont.json.reason]).toEqual([410, "Expired"]);
  }, 60_000);

  // kube-apiserver hands its etcd client's error on untouched (storeerr knows none of them): the
  // Status writer answers 500 with no reason and the error's text. A write is never retried on
  // another member, as it may have been applied.
  it("a write whose etcd dies under it: 500, no reason, the etcd client's error; then recovery", async () => {
    const inflightWrites = async () => {
      const page = (await req(server, "GET", "/metrics")).text;
      return Number(/^apiserver_current_inflight_requests\{request_kind="mutating"\} (\d+)/m.exec(page)?.[1] ?? 0);
    };
    // A write first: what a create reads on its way (admission's lazily started caches) is read
    // now, so the write below waits on etcd for its transaction only.
    expect((await req(server, "POST", "/api/v1/namespaces/default/configmaps", { body: cm("warm") })).status).toBe(201);
    await etcd.pause();
    try {
      const write = req(server, "POST", "/api/v1/namespaces/default/configmaps", { body: cm("dying") });
      // The write is in its handler, and its etcd call on the connection the stopped etcd holds.
      await expect.poll(inflightWrites, { timeout: 3000, interval: 50 }).toBe(1);
      await new Promise((r) => setTimeout(r, 300));
      process.kill(etcd.pid(), "SIGKILL");
      const r = await write;
      expect(r.status, r.text).toBe(500);
      expect(r.json).toMatchObject({ kind: "Status", status: "Failure", code: 500 });
      expect(r.json.reason).toBeUndefined();
      const address = etcd.url.replace(/^http:\/\//, "");
      expect(r.json.message).toBe(`rpc error: code = Unavailable desc = error reading from server: read tcp ${address}: read: connection reset by peer`);
    } finally {
      await etcd.exited();
      await etcd.restart();
    }
    await expect.poll(async () => (await req(server, "GET", "/readyz")).status, { timeout: 20_000, interval: 250 }).toBe(200);
    await expect.poll(async () => (await req(server, "POST", "/api/v1/namespaces/default/configmaps", { body: cm("after-death") })).status, { timeout: 20_000, interval: 250 }).toBe(201);
  }, 60_000);

  it("losing etcd: /readyz names the failing etcd check, requests answer 504, watches end; all recover when etcd returns", async () => {
    expect((await req(server, "GET", "/readyz")).status).toBe(200);
    const watch = watchEvents(server, "/api/v1/namespaces/default/configmaps?watch=1", () => false, 30_000);
    const watchEnded = watch.then(
      () => "ended",
      (e) => `failed: ${e}`,
    );
    await watch.opened;
    await etcd.stop();
    try {
      // The probe runs at most every half --etcd-healthcheck-timeout; in between, the last result stands.
      await expect.poll(async () => (await req(server, "GET", "/readyz")).status, { timeout: 5000, interval: 100 }).toBe(500);
      const ready = await req(server, "GET", "/readyz?verbose");
      expect(ready.text).toMatch(/\[-\]etcd failed/);
      expect(ready.text).toMatch(/\[-\]etcd-readiness failed/);
      const live = await req(server, "GET", "/livez/etcd");
      expect(live.status).toBe(500);
      const t0 = Date.now();
      const get = await req(server, "GET", "/api/v1/namespaces/default/configmaps?limit=1");
      // A list waits for the watch cache, which etcd's loss stopped (503), or for etcd itself (504).
      expect(get.json?.kind).toBe("Status");
      expect([503, 504]).toContain(get.status);
      expect(Date.now() - t0).toBeLessThan(10_000);
      const write = await req(server, "POST", "/api/v1/namespaces/default/configmaps", { body: cm("during") });
      expect(write.status).toBe(504);
      expect(await watchEnded).toBe("ended");
    } finally {
      await etcd.restart();
    }
    await expect.poll(async () => (await req(server, "GET", "/readyz")).status, { timeout: 20_000, interval: 250 }).toBe(200);
    await expect.poll(async () => (await req(server, "POST", "/api/v1/namespaces/default/configmaps", { body: cm("after") })).status, { timeout: 20_000, interval: 250 }).toBe(201);
    const list = await req(server, "GET", "/api/v1/namespaces/default/configmaps");
    expect(list.json.items.map((i: any) => i.metadata.name)).toContain("after");
  }, 90_000);
});

describeEtcd("kapi serve on an etcd that requires client certificates", () => {
  let etcd: EtcdProcess;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-etcd-tls-"));
    const ca = await createCA("etcd-ca");
    const serving = await createLeaf(ca, { commonName: "etcd", ips: ["127.0.0.1"], dnsNames: ["localhost"], usage: "server" });
    const client = await createLeaf(ca, { commonName: "kapi", usage: "client" });
    const write = (name: string, pem: string) => (writeFileSync(join(dir, name), pem), join(dir, name));
    etcd = await startEtcd({
      tls: {
        certFile: write("server.crt", serving.certPem),
        keyFile: write("server.key", serving.keyPem),
        trustedCaFile: write("ca.crt", ca.certPem),
        clientCertFile: write("client.crt", client.certPem),
        clientKeyFile: write("client.key", client.keyPem),
      },
    });
  }, 60_000);
  afterAll(async () => {
    await etcd?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves through --etcd-cafile, --etcd-certfile and --etcd-keyfile; without a client certificate it does not start", async () => {
    const base = ["--storage-backend=etcd3", `--etcd-servers=${etcd.url}`, "--secure-port=0", "--bind-address=127.0.0.1", `--data-dir=${join(dir, "kapi")}`, `--etcd-cafile=${join(dir, "ca.crt")}`];
    const s = await serveKapi([...base, `--etcd-certfile=${join(dir, "client.crt")}`, `--etcd-keyfile=${join(dir, "client.key")}`]);
    try {
      const server = asTestServer(s.url, join(dir, "kapi"));
      const r = await req(server, "POST", "/api/v1/namespaces/default/configmaps", { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "over-tls" } } });
      expect(r.status).toBe(201);
      expect((await req(server, "GET", "/api/v1/namespaces/default/configmaps/over-tls")).status).toBe(200);
    } finally {
      const exited = new Promise((r) => s.proc.once("exit", r));
      s.proc.kill("SIGTERM");
      await exited;
    }
    const refused = await runKapi(["serve", ...base, "--secure-port=0", `--data-dir=${join(dir, "kapi2")}`], 30_000);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`cannot open the etcd3 storage at ${etcd.url}`);
  }, 60_000);
});
