// The default ServiceCIDR, as kube-apiserver 1.34 makes it (MultiCIDRServiceAllocator is GA and
// locked on): networking.k8s.io/v1 ServiceCIDR "kubernetes" with --service-cluster-ip-range's
// network as its one CIDR, made at start, Ready=True applied to its status by
// kubernetes-service-cidr-controller, made again when deleted, and left alone (not rewritten) by a
// server whose flag names another range. On every backend.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { StartOptions } from "../src/index.js";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { etcdSkipReason, startEtcd, type EtcdProcess } from "./support/etcd.js";

const path = "/apis/networking.k8s.io/v1/servicecidrs/kubernetes";

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function backend(kind: "memory" | "sqlite" | "etcd3"): Promise<StartOptions> {
  if (kind === "memory") return { storage: "memory" };
  const dataDir = mkdtempSync(join(tmpdir(), "kapi-servicecidr-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  if (kind === "sqlite") return { storage: "sqlite", dataDir };
  const etcd: EtcdProcess = await startEtcd();
  cleanups.push(() => etcd.cleanup());
  return { storage: "etcd3", dataDir, options: { etcdServers: [etcd.url], etcd: { prefix: "/kapi-servicecidr", compactionIntervalMs: 0, countMetricPollPeriodMs: 0, serversOverrides: [], healthcheckTimeoutMs: 2000, readycheckTimeoutMs: 2000 } } };
}

const start = (base: StartOptions, range: string) => startTestServer({ ...base, options: { ...base.options, serviceClusterIPRange: range } });

const kinds = ["memory", "sqlite", ...(etcdSkipReason ? [] : ["etcd3" as const])] as const;
if (etcdSkipReason) it.skip(`default ServiceCIDR on etcd3 (skipped: ${etcdSkipReason})`, () => {});

describe.each(kinds)("the default ServiceCIDR on %s", (kind) => {
  let s: EmbeddedTestServer;
  let base: StartOptions;

  it("exists once the server has started: the flag's network, Ready=True applied by its controller", async () => {
    base = await backend(kind);
    s = await start(base, "10.96.0.0/16");
    cleanups.push(() => s.stop());
    const r = await req(s, "GET", path);
    expect(r.status).toBe(200);
    expect(r.json.spec).toEqual({ cidrs: ["10.96.0.0/16"] });
    const [ready] = r.json.status.conditions;
    expect(r.json.status.conditions).toHaveLength(1);
    expect(ready).toEqual({ type: "Ready", status: "True", reason: "", message: "Kubernetes default Service CIDR is ready", lastTransitionTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });
    const managers = r.json.metadata.managedFields.map((m: any) => [m.manager, m.operation, m.subresource ?? ""]);
    // Apply entries sort before Update ones, as upstream sorts them.
    expect(managers).toEqual([
      ["kubernetes-service-cidr-controller", "Apply", "status"],
      ["kube-apiserver", "Update", ""],
    ]);
    const owned = r.json.metadata.managedFields[0].fieldsV1;
    expect(owned).toEqual({ "f:status": { "f:conditions": { 'k:{"type":"Ready"}': { ".": {}, "f:lastTransitionTime": {}, "f:message": {}, "f:status": {}, "f:type": {} } } } });
    expect((await req(s, "GET", "/apis/networking.k8s.io/v1/servicecidrs")).json.items.map((i: any) => i.metadata.name)).toEqual(["kubernetes"]);
  }, 60_000);

  it("is made again when deleted", async () => {
    const before = (await req(s, "GET", path)).json;
    expect((await req(s, "DELETE", path)).status).toBe(200);
    await s.settle();
    const again = await req(s, "GET", path);
    expect(again.status).toBe(200);
    expect(again.json.metadata.uid).not.toBe(before.metadata.uid);
    expect(again.json.spec.cidrs).toEqual(["10.96.0.0/16"]);
    expect(again.json.status.conditions.map((c: any) => `${c.type}=${c.status}`)).toEqual(["Ready=True"]);
  });

  it.runIf(kind === "memory")("a later server of the same options, started from the process's copied initial state, runs its controller too", async () => {
    const second = await start(base, "10.96.0.0/16");
    cleanups.push(() => second.stop());
    expect((await req(second, "DELETE", path)).status).toBe(200);
    await second.settle();
    const again = await req(second, "GET", path);
    expect(again.status).toBe(200);
    expect(again.json.status.conditions.map((c: any) => `${c.type}=${c.status}`)).toEqual(["Ready=True"]);
  });

  it.runIf(kind !== "memory")("a server restarted with another range leaves the stored one as it is", async () => {
    const stored = (await req(s, "GET", path)).json;
    await s.stop();
    s = await start(base, "10.100.0.0/24");
    cleanups.push(() => s.stop());
    await s.settle();
    const after = (await req(s, "GET", path)).json;
    expect(after.spec.cidrs).toEqual(["10.96.0.0/16"]);
    expect(after.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
  }, 60_000);
});
