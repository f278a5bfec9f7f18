// Several kapi servers in one process over one storage backend, as replicas over one etcd: the
// controller manager's controllers run on exactly one of them (the holder of the
// coordination.k8s.io/v1 Lease kube-system/kapi-controllers), the work moves when the leader
// goes, and the start-up bootstrap is safe when replicas start together. Driven through
// @kubernetes/client-node against each replica's own HTTPS endpoint.
import { afterEach, describe, expect, it } from "vitest";
import { CoordinationV1Api, CoreV1Api, KubeConfig, NetworkingV1Api, RbacAuthorizationV1Api, SchedulingV1Api, type V1Service } from "@kubernetes/client-node";
import { nodePortsKey, portsOfRangeAllocation } from "../src/types/allocation/service-claims.js";
import { MemoryStorage } from "../src/storage/memory/memory-storage.js";
import type { Storage } from "../src/storage/interface.js";
import { startTuned, type PartsServer } from "./support/list-watch.js";
import { whenSettled } from "./support/settle.js";
import { until } from "./support/until.js";
import type { RunningServer } from "../src/server/start.js";
import type { AdmissionPlugin } from "../src/registry/admission.js";

type Replica = PartsServer & Pick<RunningServer, "election" | "controllersIdle" | "whenControllersIdle">;

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

/** Short timings keep the test quick; the defaults are upstream's (15 s / 10 s / 2 s). */
const fast = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };

function sharedBackend(): Storage {
  const storage = new MemoryStorage();
  cleanups.push(() => storage.close());
  return storage;
}

type Extra = { serviceClusterIPRange?: string; serviceNodePortRange?: string; admissionPlugins?: AdmissionPlugin[] };

async function replica(storage: Storage, leaderElect = true, extra: Extra = {}): Promise<Replica> {
  const s = (await startTuned({
    ...extra,
    sharedStorage: storage,
    leaderElect,
    leaderElection: { ...fast, resourceLock: "leases", resourceName: "kapi-controllers", resourceNamespace: "kube-system" },
  })) as Replica;
  let stopped = false;
  const stop = s.stop.bind(s);
  s.stop = async () => {
    if (stopped) return;
    stopped = true;
    await stop();
  };
  cleanups.push(() => s.stop());
  return s;
}

function api<T>(s: { kubeconfig: string }, ctor: new (...a: any[]) => T): T {
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  return kc.makeApiClient(ctor as any) as T;
}

const leaders = (rs: Replica[]) => rs.filter((r) => r.election?.isLeading());

async function namespaceGone(s: Replica, name: string): Promise<boolean> {
  return api(s, CoreV1Api)
    .readNamespace({ name })
    .then(
      () => false,
      (e) => e.code === 404,
    );
}

describe("replicas over one storage", () => {
  it("exactly one replica holds the Lease and runs the controllers; another takes over when it goes", async () => {
    const storage = sharedBackend();
    const rs = await Promise.all([replica(storage), replica(storage), replica(storage)]);
    // The Lease changing hands takes the lease's own time, and no event tells this process: polled.
    const first = await until("a leader", () => (leaders(rs).length > 0 ? leaders(rs) : undefined), 15_000);
    expect(first).toHaveLength(1);
    const leader = first[0]!;
    const others = rs.filter((r) => r !== leader);
    // Every replica reads the same Lease, naming the leader.
    for (const r of rs) {
      const lease = await api(r, CoordinationV1Api).readNamespacedLease({ namespace: "kube-system", name: "kapi-controllers" });
      expect(lease.spec?.holderIdentity).toBe(leader.election!.identity);
      expect(lease.spec?.leaseDurationSeconds).toBe(4);
      expect(r.election!.identity).toMatch(/^.+_[0-9a-f-]{36}$/);
    }
    // A non-leader has no controller work at hand: it settles although the namespace controller
    // would have work, which the leader does.
    const b = others[0]!;
    await api(b, CoreV1Api).createNamespace({ body: { metadata: { name: "doomed-1" } } });
    await api(b, CoreV1Api).createNamespacedConfigMap({ namespace: "doomed-1", body: { metadata: { name: "c" } } });
    await api(b, CoreV1Api).deleteNamespace({ name: "doomed-1" });
    await whenSettled(leader, "doomed-1 finalized by the leader", () => namespaceGone(b, "doomed-1"));
    await b.whenControllersIdle();

    // The leader goes without releasing the Lease (as a killed process): another takes it within
    // the lease duration plus a few retries, and the work continues there.
    const wentAt = Date.now();
    await leader.stop();
    const next = await until("a new leader", () => (leaders(others).length > 0 ? leaders(others) : undefined), 10_000);
    expect(next).toHaveLength(1);
    expect(Date.now() - wentAt).toBeLessThan(fast.leaseDurationMs + 4 * fast.retryPeriodMs * 2.2 + 1_000);
    const lease = await api(b, CoordinationV1Api).readNamespacedLease({ namespace: "kube-system", name: "kapi-controllers" });
    expect(lease.spec?.holderIdentity).toBe(next[0]!.election!.identity);
    expect(lease.spec?.leaseTransitions).toBe(1);
    await api(b, CoreV1Api).createNamespace({ body: { metadata: { name: "doomed-2" } } });
    await api(b, CoreV1Api).createNamespacedConfigMap({ namespace: "doomed-2", body: { metadata: { name: "c" } } });
    await api(b, CoreV1Api).deleteNamespace({ name: "doomed-2" });
    await whenSettled(next[0]!, "doomed-2 finalized by the new leader", () => namespaceGone(b, "doomed-2"));
    // Still one leader at a time.
    expect(leaders(others)).toHaveLength(1);
  }, 60_000);

  it("without --leader-elect a server runs the controllers itself and writes no Lease", async () => {
    const s = await replica(sharedBackend(), false);
    expect(s.election).toBeUndefined();
    await api(s, CoreV1Api).createNamespace({ body: { metadata: { name: "solo" } } });
    await api(s, CoreV1Api).deleteNamespace({ name: "solo" });
    await whenSettled(s, "solo finalized", () => namespaceGone(s, "solo"));
    const leases = await api(s, CoordinationV1Api).listNamespacedLease({ namespace: "kube-system" });
    expect(leases.items.map((l) => l.metadata?.name)).not.toContain("kapi-controllers");
  }, 30_000);

  it("replicas starting together each bootstrap without error, and the objects exist once", async () => {
    const alone = await replica(sharedBackend());
    const expected = await bootstrapped(alone);
    await alone.stop();
    const storage = sharedBackend();
    const rs = await Promise.all([replica(storage), replica(storage), replica(storage)]);
    for (const r of rs) expect(await bootstrapped(r)).toEqual(expected);
    expect(expected.clusterRoles).toBeGreaterThan(50);
    expect(expected.priorityClasses).toEqual(["system-cluster-critical", "system-node-critical"]);
  }, 60_000);
});

describe("service allocation across replicas", () => {
  // A range just large enough: replicas that did not claim values in storage would hand some
  // out twice, as each chooses under its own lock against what is stored.
  const ranges = { serviceClusterIPRange: "10.96.0.0/28", serviceNodePortRange: "30000-30012" };
  const nodePortService = (name: string): V1Service => ({ metadata: { name }, spec: { type: "NodePort", ports: [{ port: 80 }] } });

  it("cluster IPs and node ports stay unique when services are created through every replica at once", async () => {
    const storage = sharedBackend();
    const rs = await Promise.all([replica(storage, true, ranges), replica(storage, true, ranges), replica(storage, true, ranges)]);
    const names = Array.from({ length: 13 }, (_, i) => `svc-${i}`);
    const created = await Promise.all(names.map((name, i) => api(rs[i % 3]!, CoreV1Api).createNamespacedService({ namespace: "default", body: nodePortService(name) })));
    const ips = created.map((s) => s.spec!.clusterIP!);
    const ports = created.map((s) => s.spec!.ports![0]!.nodePort!);
    // 13 services and the kubernetes one: every address of the /28 (network and broadcast aside).
    expect(new Set(ips).size).toBe(13);
    expect(ips).not.toContain("10.96.0.1"); // the kubernetes Service's
    expect(new Set(ports).size).toBe(13);
    // Each IP is an IPAddress naming its Service, readable through any replica.
    const addrs = await api(rs[1]!, NetworkingV1Api).listIPAddress();
    const parents = new Map(addrs.items.map((a) => [a.metadata!.name!, `${a.spec!.parentRef!.namespace}/${a.spec!.parentRef!.name}`]));
    for (const s of created) expect(parents.get(s.spec!.clusterIP!)).toBe(`default/${s.metadata!.name}`);
    expect(parents.get("10.96.0.1")).toBe("default/kubernetes");
    expect(portsOfRangeAllocation((await storage.get(nodePortsKey))?.value)).toEqual(new Set(ports));
    // The range is full now, whichever replica is asked.
    await expect(api(rs[2]!, CoreV1Api).createNamespacedService({ namespace: "default", body: { metadata: { name: "one-too-many" }, spec: { ports: [{ port: 80 }] } } })).rejects.toMatchObject({ code: 422 });

    // A deleted Service gives its values back: another replica can hand them out again.
    await api(rs[0]!, CoreV1Api).deleteNamespacedService({ namespace: "default", name: "svc-3" });
    expect(parents.has(ips[3]!)).toBe(true);
    const after = await api(rs[0]!, NetworkingV1Api).listIPAddress();
    expect(after.items.map((a) => a.metadata!.name)).not.toContain(ips[3]);
    expect(portsOfRangeAllocation((await storage.get(nodePortsKey))?.value).has(ports[3]!)).toBe(false);
    const again = await api(rs[2]!, CoreV1Api).createNamespacedService({ namespace: "default", body: { ...nodePortService("svc-again"), spec: { type: "NodePort", clusterIP: ips[3], ports: [{ port: 80, nodePort: ports[3] }] } } });
    expect(again.spec!.clusterIP).toBe(ips[3]);
    // A value held through another replica is refused as upstream refuses it.
    await expect(
      api(rs[1]!, CoreV1Api).createNamespacedService({ namespace: "default", body: { metadata: { name: "dup" }, spec: { clusterIP: ips[0], ports: [{ port: 80 }] } } }),
    ).rejects.toMatchObject({ code: 422, body: expect.stringContaining("provided IP is already allocated") });
  }, 60_000);

  it("one value asked for through two replicas at once goes to one Service only", async () => {
    // A slow validating stage holds each write between its choice of values and its commit,
    // where the other replica's choice is made: only the claim in storage tells them apart.
    const slow: AdmissionPlugin = { name: "SlowServices", validate: async (a) => void (a.type.resource === "services" && (await new Promise((r) => setTimeout(r, 300)))) };
    const storage = sharedBackend();
    const rs = await Promise.all([replica(storage, false, { ...ranges, admissionPlugins: [slow] }), replica(storage, false, { ...ranges, admissionPlugins: [slow] })]);
    const asking = (name: string) => ({ metadata: { name }, spec: { type: "NodePort", clusterIP: "10.96.0.9", ports: [{ port: 80, nodePort: 30009 }] } }) as V1Service;
    const outcomes = await Promise.allSettled([api(rs[0]!, CoreV1Api).createNamespacedService({ namespace: "default", body: asking("left") }), api(rs[1]!, CoreV1Api).createNamespacedService({ namespace: "default", body: asking("right") })]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 422, body: expect.stringMatching(/provided (IP|port) is already allocated/) });
    const winner = (outcomes.find((o) => o.status === "fulfilled") as PromiseFulfilledResult<V1Service>).value.metadata!.name;
    const addr = await api(rs[0]!, NetworkingV1Api).readIPAddress({ name: "10.96.0.9" });
    expect(addr.spec!.parentRef!.name).toBe(winner);
    expect(portsOfRangeAllocation((await storage.get(nodePortsKey))?.value)).toEqual(new Set([30009]));
  }, 30_000);

  it("a dry run claims nothing", async () => {
    const storage = sharedBackend();
    const s = await replica(storage, false, ranges);
    const dry = await api(s, CoreV1Api).createNamespacedService({ namespace: "default", body: nodePortService("dry"), dryRun: "All" });
    expect(dry.spec!.clusterIP).toMatch(/^10\.96\.0\./);
    expect((await api(s, NetworkingV1Api).listIPAddress()).items.map((a) => a.metadata!.name)).toEqual(["10.96.0.1"]);
    expect(await storage.get(nodePortsKey)).toBeUndefined();
  }, 30_000);
});

/** What the bootstrap leaves: namespaces, RBAC policy, priority classes, the kubernetes Service. */
async function bootstrapped(s: Replica) {
  const rbac = api(s, RbacAuthorizationV1Api);
  const core = api(s, CoreV1Api);
  const svc = await core.readNamespacedService({ namespace: "default", name: "kubernetes" });
  return {
    namespaces: (await core.listNamespace()).items.map((n) => n.metadata!.name).sort(),
    clusterRoles: (await rbac.listClusterRole()).items.length,
    clusterRoleBindings: (await rbac.listClusterRoleBinding()).items.length,
    roles: (await rbac.listRoleForAllNamespaces()).items.length,
    roleBindings: (await rbac.listRoleBindingForAllNamespaces()).items.length,
    priorityClasses: (await api(s, SchedulingV1Api).listPriorityClass()).items.map((p) => p.metadata!.name).sort(),
    kubernetesService: svc.spec?.clusterIP,
  };
}
