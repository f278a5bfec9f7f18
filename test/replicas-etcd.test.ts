// Three `kapi serve` replicas on one real etcd: exactly one holds the controllers' Lease
// (kube-system/kapi-controllers) and does the namespace lifecycle work, whichever replica a
// request reaches; `kill -9` of the leader moves the Lease, and the work, to another replica
// within the lease duration; Service IPs and node ports stay unique across replicas. Timings are
// shortened by flag (lease 5 s, renew 3 s, retry 500 ms; upstream's are 15 s, 10 s, 2 s) to keep the test quick.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoordinationV1Api, CoreV1Api, KubeConfig, NetworkingV1Api } from "@kubernetes/client-node";
import { asTestServer, serveKapi } from "./support/cli.js";
import type { HttpServer } from "./support/client.js";
import { etcdSkipReason, startEtcd, type EtcdProcess } from "./support/etcd.js";
import { until } from "./support/until.js";

const describeEtcd = etcdSkipReason ? describe.skip : describe;
if (etcdSkipReason) describe(`kapi replicas on etcd (skipped: ${etcdSkipReason})`, () => it.skip("needs etcd", () => {}));

interface Replica {
  proc: ChildProcess;
  server: HttpServer;
  stderr(): string;
  dir: string;
}

const timings = ["--leader-elect-lease-duration=5s", "--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=500ms"];
const acquired = /leader election: (\S+) successfully acquired lease kube-system\/kapi-controllers/g;
/** The identities a replica acquired the Lease as (its log). */
const acquisitions = (r: Replica) => [...r.stderr().matchAll(acquired)].map((m) => m[1]!);

function api<T>(r: Replica, ctor: new (...a: any[]) => T): T {
  const kc = new KubeConfig();
  kc.loadFromString(r.server.kubeconfig);
  return kc.makeApiClient(ctor as any) as T;
}

const gone = (r: Replica, ns: string) =>
  api(r, CoreV1Api)
    .readNamespace({ name: ns })
    .then(
      () => false,
      (e: { code?: number }) => e.code === 404,
    );

describeEtcd("three kapi replicas on one etcd", () => {
  let etcd: EtcdProcess;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    etcd = await startEtcd();
    const started = await Promise.all(
      [0, 1, 2].map(async () => {
        const dir = mkdtempSync(join(tmpdir(), "kapi-replica-"));
        const s = await serveKapi([
          "--storage-backend=etcd3",
          `--etcd-servers=${etcd.url}`,
          "--etcd-prefix=/kapi-replicas",
          "--secure-port=0",
          "--bind-address=127.0.0.1",
          `--data-dir=${dir}`,
          "--service-cluster-ip-range=10.96.0.0/28",
          "--service-node-port-range=30000-30012",
          ...timings,
        ]);
        return { proc: s.proc, server: asTestServer(s.url, dir), stderr: s.stderr, dir };
      }),
    );
    replicas.push(...started);
  }, 90_000);

  afterAll(async () => {
    for (const r of replicas) {
      if (r.proc.exitCode === null && r.proc.signalCode === null) {
        const exited = new Promise((res) => r.proc.once("exit", res));
        r.proc.kill("SIGTERM");
        await exited;
      }
      rmSync(r.dir, { recursive: true, force: true });
    }
    await etcd?.cleanup();
  });

  it("one replica leads; a namespace deleted through another is finalized; kill -9 of the leader moves the work", async () => {
    const leader = await until("one leader", () => replicas.find((r) => acquisitions(r).length > 0), 20_000);
    // Let the candidates try a few times more: still one leader.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(replicas.filter((r) => acquisitions(r).length > 0)).toEqual([leader]);
    const identity = acquisitions(leader)[0]!;
    const others = replicas.filter((r) => r !== leader);
    for (const r of replicas) {
      const lease = await api(r, CoordinationV1Api).readNamespacedLease({ namespace: "kube-system", name: "kapi-controllers" });
      expect(lease.spec?.holderIdentity).toBe(identity);
      expect(lease.spec?.leaseDurationSeconds).toBe(5);
    }

    const b = others[0]!;
    await api(b, CoreV1Api).createNamespace({ body: { metadata: { name: "through-b" } } });
    await api(b, CoreV1Api).createNamespacedConfigMap({ namespace: "through-b", body: { metadata: { name: "c" } } });
    await api(b, CoreV1Api).deleteNamespace({ name: "through-b" });
    await until("through-b finalized", () => gone(b, "through-b"), 20_000);

    const killedAt = Date.now();
    leader.proc.kill("SIGKILL");
    const next = await until("a new leader", () => others.find((r) => acquisitions(r).length > 0), 15_000);
    // One lease duration after the last renewal the other candidates saw, plus their retries.
    expect(Date.now() - killedAt).toBeLessThan(5_000 + 3 * 500 * 2.2 + 2_000);
    const lease = await api(b, CoordinationV1Api).readNamespacedLease({ namespace: "kube-system", name: "kapi-controllers" });
    expect(lease.spec?.holderIdentity).toBe(acquisitions(next)[0]);
    expect(lease.spec?.leaseTransitions).toBe(1);
    expect(others.filter((r) => acquisitions(r).length > 0)).toEqual([next]);

    const c = others.find((r) => r !== next) ?? next;
    await api(c, CoreV1Api).createNamespace({ body: { metadata: { name: "after-failover" } } });
    await api(c, CoreV1Api).createNamespacedConfigMap({ namespace: "after-failover", body: { metadata: { name: "c" } } });
    await api(c, CoreV1Api).deleteNamespace({ name: "after-failover" });
    await until("after-failover finalized by the new leader", () => gone(c, "after-failover"), 20_000);
  }, 90_000);

  it("Service cluster IPs and node ports stay unique when created through every replica at once", async () => {
    const alive = replicas.filter((r) => r.proc.exitCode === null && r.proc.signalCode === null);
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api(alive[i % alive.length]!, CoreV1Api).createNamespacedService({ namespace: "default", body: { metadata: { name: `svc-${i}` }, spec: { type: "NodePort", ports: [{ port: 80 }] } } }),
      ),
    );
    expect(new Set(created.map((s) => s.spec!.clusterIP)).size).toBe(12);
    expect(new Set(created.map((s) => s.spec!.ports![0]!.nodePort)).size).toBe(12);
    const addrs = await api(alive[0]!, NetworkingV1Api).listIPAddress();
    const parent = new Map(addrs.items.map((a) => [a.metadata!.name!, a.spec!.parentRef!.name]));
    for (const s of created) expect(parent.get(s.spec!.clusterIP!)).toBe(s.metadata!.name);
  }, 60_000);
});
