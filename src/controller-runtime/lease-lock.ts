// The election's lock as a coordination.k8s.io/v1 Lease (upstream resourcelock.LeaseLock), read
// and written through the Lease type's store like any other object, so every replica sees it and
// a write over a stale resourceVersion is refused (409) as upstream's update is.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { ApiError } from "../apimachinery/errors.js";
import type { KObject } from "../apimachinery/object.js";
import type { GenericStore } from "../registry/store.js";
import type { LeaderElectionRecord, ResourceLock } from "./leader-election.js";

/** kube-controller-manager's identity: the host name, "_", a fresh UUID (unique per process start). */
export function candidateIdentity(host = hostname()): string {
  return `${host}_${randomUUID()}`;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** LeaseSpecToLeaderElectionRecord. */
export function recordOfLease(spec: LeaseSpec | undefined): LeaderElectionRecord {
  return {
    holderIdentity: spec?.holderIdentity ?? "",
    leaseDurationSeconds: spec?.leaseDurationSeconds ?? 0,
    ...(spec?.acquireTime ? { acquireTime: spec.acquireTime } : {}),
    ...(spec?.renewTime ? { renewTime: spec.renewTime } : {}),
    leaseTransitions: spec?.leaseTransitions ?? 0,
  };
}

/** LeaderElectionRecordToLeaseSpec. */
export function leaseSpecOf(r: LeaderElectionRecord): LeaseSpec {
  return {
    holderIdentity: r.holderIdentity,
    leaseDurationSeconds: r.leaseDurationSeconds,
    ...(r.acquireTime ? { acquireTime: r.acquireTime } : {}),
    ...(r.renewTime ? { renewTime: r.renewTime } : {}),
    leaseTransitions: r.leaseTransitions,
  };
}

export function leaseLock(leases: GenericStore, namespace: string, name: string, identity: string): ResourceLock {
  /** The Lease as last read or written (shared with the store: never edited): an update carries its resourceVersion as a precondition. */
  let known: KObject | undefined;
  const keep = (o: KObject) => void (known = o);
  return {
    identity,
    describe: () => `${namespace}/${name}`,
    async get() {
      try {
        keep(await leases.get(namespace, name));
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) return undefined;
        throw e;
      }
      const spec = known!.spec as LeaseSpec | undefined;
      return { record: recordOfLease(spec), raw: JSON.stringify(spec ?? {}) };
    },
    async create(record) {
      const lease = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name, namespace }, spec: leaseSpecOf(record) };
      keep((await leases.create(namespace, lease, { dryRun: false })).object);
    },
    async update(record) {
      const base = known;
      if (!base) throw new Error("lease not initialized, call get or create first");
      const result = await leases.update(namespace, name, { subresource: "", createIfMissing: false, desired: () => ({ ...base, metadata: { ...base.metadata }, spec: leaseSpecOf(record) }) }, { dryRun: false });
      keep(result.object);
    },
  };
}
