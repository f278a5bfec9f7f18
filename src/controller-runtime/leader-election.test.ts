// The election's rules over a real store (memory backend, the Lease type's own store) on a fake
// clock: who holds the lease, when another may take it, what a failed renewal does.
import { afterEach, describe, expect, it } from "vitest";
import { admissionChain } from "../admission/chain.js";
import type { KObject } from "../apimachinery/object.js";
import { Stores } from "../registry/stores.js";
import type { GenericStore } from "../registry/store.js";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { builtinTypeRegistry } from "../types/register.js";
import { FakeClock } from "./fake-clock.testkit.js";
import { defaultElectionTimings, electionTimingsError, LeaderElector, microTime, type ResourceLock } from "./leader-election.js";
import { candidateIdentity, leaseLock } from "./lease-lock.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function leaseStore(): GenericStore {
  const storage = new MemoryStorage();
  cleanups.push(() => storage.close());
  const types = builtinTypeRegistry((f) => f.group === "coordination.k8s.io" && f.version === "v1" && f.resource === "leases");
  return new Stores(storage, admissionChain([])).for(types.get("coordination.k8s.io", "v1", "leases")!);
}

/** A lock that can be made to fail or hang, as an unreachable store would. */
function faultyLock(inner: ResourceLock) {
  const state = { mode: "ok" as "ok" | "fail" | "hang" };
  const guard = <T>(op: () => Promise<T>): Promise<T> =>
    state.mode === "fail" ? Promise.reject(new Error("storage unavailable")) : state.mode === "hang" ? new Promise<T>(() => undefined) : op();
  const lock: ResourceLock = {
    identity: inner.identity,
    describe: () => inner.describe(),
    get: () => guard(() => inner.get()),
    create: (r) => guard(() => inner.create(r)),
    update: (r) => guard(() => inner.update(r)),
  };
  return { lock, state };
}

function candidate(store: GenericStore, clock: FakeClock, name: string, random = () => 0) {
  const events: string[] = [];
  const { lock, state } = faultyLock(leaseLock(store, "kube-system", "kapi-controllers", name));
  const elector = new LeaderElector({
    lock,
    timings: defaultElectionTimings,
    clock,
    random,
    callbacks: {
      onStartedLeading: () => events.push(`started@${clock.now()}`),
      onStoppedLeading: () => events.push(`stopped@${clock.now()}`),
      onNewLeader: (id) => events.push(`leader=${id}`),
    },
  });
  cleanups.push(() => elector.stop());
  elector.run();
  return { elector, events, state };
}

const lease = (store: GenericStore) => store.get("kube-system", "kapi-controllers") as Promise<KObject & { spec: Record<string, unknown> }>;

describe("LeaderElector over a Lease", () => {
  it("the first candidate creates the Lease and leads; a second waits while it renews", async () => {
    const store = leaseStore();
    const clock = new FakeClock();
    const t0 = clock.now();
    const a = candidate(store, clock, "host-a_1");
    await clock.advance(0);
    expect(a.elector.isLeading()).toBe(true);
    const created = await lease(store);
    expect(created.spec).toEqual({ holderIdentity: "host-a_1", leaseDurationSeconds: 15, acquireTime: microTime(t0), renewTime: microTime(t0), leaseTransitions: 0 });
    expect(a.events).toEqual([`leader=host-a_1`, `started@${t0}`]);

    const b = candidate(store, clock, "host-b_1");
    await clock.advance(60_000);
    expect(b.elector.isLeading()).toBe(false);
    expect(b.elector.leader()).toBe("host-a_1");
    expect(b.events).toEqual(["leader=host-a_1"]);
    const renewed = await lease(store);
    expect(renewed.spec.holderIdentity).toBe("host-a_1");
    expect(renewed.spec.acquireTime).toBe(microTime(t0));
    expect(renewed.spec.leaseTransitions).toBe(0);
    // Renewed every retry period (2 s): the last renewal is at most that old.
    expect(clock.now() - Date.parse(String(renewed.spec.renewTime))).toBeLessThanOrEqual(2_000);
  });

  it("another candidate takes the lease one lease duration after it last saw it change, counting a transition", async () => {
    const store = leaseStore();
    const clock = new FakeClock();
    const a = candidate(store, clock, "host-a_1");
    await clock.advance(0);
    const b = candidate(store, clock, "host-b_1");
    await clock.advance(5_000);
    // A dies without a word (kill -9): its loop ends, the Lease stays as it last wrote it.
    a.state.mode = "hang";
    const lastRenew = Date.parse(String((await lease(store)).spec.renewTime));
    await clock.advance(14_000);
    expect(b.elector.isLeading()).toBe(false);
    // B reads every 2–4.4 s: it saw A's last write within one retry of it, and waits 15 s from then.
    await clock.advance(6_000);
    expect(b.elector.isLeading()).toBe(true);
    const taken = await lease(store);
    expect(taken.spec.holderIdentity).toBe("host-b_1");
    expect(taken.spec.leaseTransitions).toBe(1);
    const startedAt = Number(b.events.find((e) => e.startsWith("started@"))!.slice(8));
    expect(taken.spec.acquireTime).toBe(microTime(startedAt));
    expect(startedAt - lastRenew).toBeGreaterThanOrEqual(15_000);
    expect(startedAt - lastRenew).toBeLessThanOrEqual(15_000 + 2 * 2_000 * 2.2);
  });

  it("a leader that cannot renew stops its work within the renew deadline, before another may lead", async () => {
    const store = leaseStore();
    const clock = new FakeClock();
    const a = candidate(store, clock, "host-a_1");
    await clock.advance(0);
    const b = candidate(store, clock, "host-b_1");
    await clock.advance(4_000);
    const lastRenew = Date.parse(String((await lease(store)).spec.renewTime));
    a.state.mode = "fail";
    await clock.advance(30_000);
    const stoppedAt = Number(a.events.find((e) => e.startsWith("stopped@"))!.slice(8));
    const bStarted = Number(b.events.find((e) => e.startsWith("started@"))!.slice(8));
    // The round after the last renewal begins one retry later and gives up at its deadline.
    expect(stoppedAt - lastRenew).toBeLessThanOrEqual(2_000 + 10_000);
    expect(stoppedAt).toBeLessThan(bStarted);
    expect(a.elector.isLeading()).toBe(false);
    expect(b.elector.isLeading()).toBe(true);
    // A is a candidate again: once its store answers, it sees B's lease and stays out.
    a.state.mode = "ok";
    await clock.advance(30_000);
    expect(a.elector.isLeading()).toBe(false);
    expect(a.elector.leader()).toBe("host-b_1");
    expect(a.events.filter((e) => e.startsWith("started@"))).toHaveLength(1);
  });

  it("a renewal that hangs counts as failed at the deadline", async () => {
    const store = leaseStore();
    const clock = new FakeClock();
    const a = candidate(store, clock, "host-a_1");
    await clock.advance(0);
    a.state.mode = "hang";
    await clock.advance(2_000 + 10_000 - 1);
    expect(a.elector.isLeading()).toBe(true);
    await clock.advance(1);
    expect(a.elector.isLeading()).toBe(false);
    expect(a.events.at(-1)).toBe(`stopped@${clock.now()}`);
  });

  it("a released lease (no holder) is taken at once", async () => {
    const store = leaseStore();
    await store.create("kube-system", { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "kapi-controllers" }, spec: { leaseDurationSeconds: 1, leaseTransitions: 4 } } as KObject, { dryRun: false });
    const clock = new FakeClock();
    const a = candidate(store, clock, "host-a_1");
    await clock.advance(0);
    expect(a.elector.isLeading()).toBe(true);
    expect((await lease(store)).spec.leaseTransitions).toBe(5);
  });

  it("stop ends the work of a leader and the loop of a candidate", async () => {
    const store = leaseStore();
    const clock = new FakeClock();
    const a = candidate(store, clock, "host-a_1");
    const b = candidate(store, clock, "host-b_1");
    await clock.advance(0);
    a.elector.stop();
    b.elector.stop();
    expect(a.events.at(-1)).toBe(`stopped@${clock.now()}`);
    expect(b.events.some((e) => e.startsWith("stopped"))).toBe(false);
    await clock.advance(60_000);
    expect(a.elector.isLeading() || b.elector.isLeading()).toBe(false);
  });
});

describe("the Lease lock", () => {
  it("refuses a write over a version another wrote since (optimistic concurrency)", async () => {
    const store = leaseStore();
    const one = leaseLock(store, "kube-system", "l", "a");
    const two = leaseLock(store, "kube-system", "l", "b");
    const rec = (holderIdentity: string, renewTime = "2026-01-01T00:00:00.000000Z") => ({ holderIdentity, leaseDurationSeconds: 15, renewTime, leaseTransitions: 1 });
    await one.create(rec("a"));
    expect((await two.get())!.record.holderIdentity).toBe("a");
    await one.update(rec("a", "2026-01-01T00:00:02.000000Z"));
    await expect(two.update(rec("b"))).rejects.toMatchObject({ code: 409 });
    await expect(leaseLock(store, "kube-system", "l", "c").update(rec("c"))).rejects.toThrow("lease not initialized, call get or create first");
    expect((await one.get())!.record.holderIdentity).toBe("a");
  });

  it("an identity is the host name and a fresh UUID", () => {
    const id = candidateIdentity("node-1");
    expect(id).toMatch(/^node-1_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(candidateIdentity("node-1")).not.toBe(id);
  });
});

describe("election timings", () => {
  it("checks them as upstream's NewLeaderElector does", () => {
    expect(electionTimingsError(defaultElectionTimings)).toBeUndefined();
    expect(electionTimingsError({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 })).toBe("leaseDuration must be greater than renewDeadline");
    expect(electionTimingsError({ leaseDurationMs: 15_000, renewDeadlineMs: 2_400, retryPeriodMs: 2_000 })).toBe("renewDeadline must be greater than retryPeriod*JitterFactor");
    expect(electionTimingsError({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 0 })).toBe("retryPeriod must be greater than zero");
    expect(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678))).toBe("2026-01-02T03:04:05.678000Z");
  });
});
