// kapi serve on a real etcd (--storage-backend=etcd3): objects are etcd keys under --etcd-prefix,
// lists page with continue tokens, watches resume from a resourceVersion, a restarted kapi finds
// its data, and losing etcd shows in /readyz and in requests until etcd returns.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asTestServer, serveKapi } from "./support/cli.js";
import { req, watchEvents, type TestServer } from "./support/client.js";
import { etcdSkipReason, startEtcd, type EtcdProcess } from "./support/etcd.js";

const describeEtcd = etcdSkipReason ? describe.skip : describe;
if (etcdSkipReason) describe(`kapi on etcd (skipped: ${etcdSkipReason})`, () => it.skip("needs etcd", () => {}));

describeEtcd("kapi serve --storage-backend=etcd3", () => {
  let etcd: EtcdProcess;
  let dataDir: string;
  let proc: ChildProcess | undefined;
  let server: TestServer;

  const start = async () => {
    const s = await serveKapi(["--storage-backend=etcd3", `--etcd-servers=${etcd.url}`, "--etcd-prefix=/kapi-it", "--secure-port=0", "--bind-address=127.0.0.1", `--data-dir=${dataDir}`, "--request-timeout=4s", "--etcd-healthcheck-timeout=1s"]);
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
    const events = await watchEvents(server, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${from}`, (ev) => ev.length >= 3);
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED d", "ADDED e", "ADDED aa"]);

    const update = await req(server, "PUT", "/api/v1/namespaces/default/configmaps/a", { body: { ...created[0], data: { k: "new" } } });
    expect(update.status).toBe(200);
    const stale = await req(server, "PUT", "/api/v1/namespaces/default/configmaps/a", { body: { ...created[0], data: { k: "stale" } } });
    expect([stale.status, stale.json.reason]).toEqual([409, "Conflict"]);
  }, 60_000);

  it("a restarted kapi on the same etcd serves the same objects at the same resourceVersions", async () => {
    const before = await req(server, "GET", "/api/v1/namespaces/default/configmaps/b");
    await stop();
    await start();
    const after = await req(server, "GET", "/api/v1/namespaces/default/configmaps/b");
    expect(after.status).toBe(200);
    expect(after.json.metadata.resourceVersion).toBe(before.json.metadata.resourceVersion);
    expect(after.json.data).toEqual({ k: "b" });
  }, 60_000);

  it("losing etcd: /readyz names the failing etcd check, requests answer 504, watches end; all recover when etcd returns", async () => {
    expect((await req(server, "GET", "/readyz")).status).toBe(200);
    const watchEnded = watchEvents(server, "/api/v1/namespaces/default/configmaps?watch=1", () => false, 30_000).then(
      () => "ended",
      (e) => `failed: ${e}`,
    );
    await new Promise((r) => setTimeout(r, 300));
    await etcd.stop();
    try {
      const ready = await req(server, "GET", "/readyz?verbose");
      expect(ready.status).toBe(500);
      expect(ready.text).toMatch(/\[-\]etcd failed/);
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
