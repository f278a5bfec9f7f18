// Taking and restoring snapshots of a running server, at the storage layer: a snapshot is the
// stored state, so restoring it passes no admission (a finalizer or an immutable field does not
// stand in its way) — but it is written as ordinary new revisions, so the watch caches, the
// informers and every client's watch see plain ADDED/MODIFIED/DELETED events and their caches
// stay consistent, and resourceVersions never go back.
import type { ResourceType } from "../registry/resource-type.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import { StorageError, type Storage } from "../storage/interface.js";
import { checkTypes, crdPrefix, definedType, restorePlan, type StoredType } from "./restore-plan.js";
import { whenServed, type DefinedResource } from "./served-types.js";
import { snapshotOf, type Snapshot, type StoredObject } from "./snapshot-format.js";

export interface SnapshotTarget {
  storage: Storage;
  types: TypeRegistry;
  kapiVersion: string;
}

/** Every stored object lives under this prefix. */
const registryPrefix = "/registry/";
/** A concurrent write between reading the state and committing the difference: read again. */
const maxAttempts = 5;

export async function takeSnapshot(t: SnapshotTarget): Promise<Snapshot> {
  const { items, revision } = await t.storage.range(registryPrefix);
  return snapshotOf(items, revision, t.kapiVersion);
}

/**
 * Makes the stored state the snapshot's in one storage transaction (checked in full first: a
 * snapshot that does not fit this server changes nothing), then waits until the watch caches have
 * it and the snapshot's established CustomResourceDefinitions are served. On etcd a transaction
 * of more than 128 writes is several commits: an attempt that loses a race part way leaves its
 * earlier commits written, and the next attempt plans from the state read again, so it writes
 * only what is still different (a restore that failed may be run again to the same end).
 */
export async function restoreSnapshot(t: SnapshotTarget, snapshot: Snapshot): Promise<{ writes: number }> {
  checkTypes(snapshot, builtinStoredTypes(t.types));
  let writes = 0;
  for (let attempt = 1; ; attempt++) {
    const { items } = await t.storage.range(registryPrefix);
    const ops = restorePlan(items, snapshot);
    try {
      if (ops.length > 0) await t.storage.transaction(ops);
      writes = ops.length;
      break;
    } catch (e) {
      const raced = e instanceof StorageError && (e.code === "Conflict" || e.code === "KeyExists" || e.code === "KeyNotFound");
      if (!raced || attempt === maxAttempts) throw e;
    }
  }
  // No wait for the watch caches: every read through the API is consistent (a cache answers once
  // it has caught up with the storage revision), so the next request sees the restored state.
  await whenServed(t.types, establishedResources(snapshot));
  return { writes };
}

/** Where the built-in types keep their objects (custom resources are told by their CRDs). */
function builtinStoredTypes(types: TypeRegistry): StoredType[] {
  // Only built-ins have a protobuf encoding: a CRD's types are not taken as given, the snapshot's CRDs decide.
  return types.stored().filter((x: ResourceType) => x.protobuf).map((x) => ({ keyPrefix: x.keyPrefix, namespaced: x.namespaced, name: x.group ? `${x.resource}.${x.group}` : x.resource }));
}

function establishedResources(snapshot: Snapshot): DefinedResource[] {
  const out: DefinedResource[] = [];
  for (const o of snapshot.objects) {
    if (!o.key.startsWith(crdPrefix) || !isEstablished(o.object)) continue;
    const spec = o.object.spec as { group: string; names: { plural: string } };
    if (definedType(o.object)) out.push({ group: spec.group, resource: spec.names.plural, crd: o.object.metadata.name });
  }
  return out;
}

function isEstablished(crd: StoredObject): boolean {
  const status = crd.status as { conditions?: { type?: string; status?: string }[] } | undefined;
  return (status?.conditions ?? []).some((c) => c.type === "Established" && c.status === "True");
}
