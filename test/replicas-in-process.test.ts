// Several kapi servers in one process over one storage backend, as replicas over one etcd: the
// controller manager's controllers run on exactly one of them (the holder of the
// coordination.k8s.io/v1 Lease kube-system/kapi-controllers), the work moves when the leader
// goes, and the start-up bootstrap is safe when replicas start together. Driven through
// @kubernetes/client-node against each replica's own HTTPS endpoint.
import { afterEach, describe, expect, it } from "vitest";
import { CoordinationV1Api, CoreV1Api, KubeConfig, RbacAuthorizationV1Api, SchedulingV1Api } from "@kubernetes/client-node";
import { MemoryStorage } from "../src/storage/memory/memory-storage.js";
import type { Storage } from "../src/storage/interface.js";
import { startTuned, type PartsServer } from "./support/list-watch.js";
import type { RunningServer } from "../src/server/start.js";

type Replica = PartsServer & Pick<RunningServer, "election" | "controllersIdle" | "whenControllersIdle">;

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

/** Short timings keep the test quick; the defaults are upstream's (15 s / 10 s / 2 s). */
const fast = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };

function sharedBackend(): Storage {
  const storage = new MemoryStorage();
  cleanups.push(() => storage.close());
  return storage;
}

async function replica(storage: Storage, leaderElect = true): Promise<Replica> {
  const s = (await startTuned({
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

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
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
    const first = await until("a leader", () => (leaders(rs).length > 0 ? leaders(rs) : undefined));
    expect(first).toHaveLength(1);
    const leader = first[0]!;
    const others = rs.filter((r) => r !== leader);
    // Every replica reads the same Lease, naming the leader.
    for (const r of rs) {
      const lease = await api(r, CoordinationV1Api).readNamespacedLease({ namespace: "kube-system", name: "kapi-controllers" });
      expect(lease.spec?.holderIdentity).toBe(leader.election!.identity);
      expect(lease.spec?.leaseDurationSeconds).toBe(3);
      expect(r.election!.identity).toMatch(/^.+_[0-9a-f-]{36}$/);
    }
    // A non-leader has no controller work at hand: it settles although the namespace controller
    // would have work, which the leader does.
    const b = others[0]!;
    await api(b, CoreV1Api).createNamespace({ body: { metadata: { name: "doomed-1" } } });
    await api(b, CoreV1Api).createNamespacedConfigMap({ namespace: "doomed-1", body: { metadata: { name: "c" } } });
    await api(b, CoreV1Api).deleteNamespace({ name: "doomed-1" });
    await until("doomed-1 finalized by the leader", () => namespaceGone(b, "doomed-1"));
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
    await until("doomed-2 finalized by the new leader", () => namespaceGone(b, "doomed-2"));
    // Still one leader at a time.
    expect(leaders(others)).toHaveLength(1);
  }, 60_000);

  it("without --leader-elect a server runs the controllers itself and writes no Lease", async () => {
    const s = await replica(sharedBackend(), false);
    expect(s.election).toBeUndefined();
    await api(s, CoreV1Api).createNamespace({ body: { metadata: { name: "solo" } } });
    await api(s, CoreV1Api).deleteNamespace({ name: "solo" });
    await until("solo finalized", () => namespaceGone(s, "solo"));
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
