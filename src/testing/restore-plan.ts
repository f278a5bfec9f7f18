// What a restore writes (pure): the difference between the stored state and a snapshot, as the
// deletes, updates and creates of one storage transaction, and the checks that every object of
// the snapshot belongs to a type the server stores (built in, or defined by a
// CustomResourceDefinition of the snapshot itself).
import type { KeyValue, WriteOp } from "../storage/interface.js";
import { SnapshotError, storedValue, type Snapshot, type StoredObject } from "./snapshot-format.js";

/** Where one type keeps its objects. */
export interface StoredType {
  keyPrefix: string;
  namespaced: boolean;
  /** "resource.group", for messages. */
  name: string;
}

export const crdPrefix = "/registry/apiextensions.k8s.io/customresourcedefinitions/";

/** The custom resource type a CRD object defines, when it names one. */
export function definedType(crd: StoredObject): StoredType | undefined {
  const spec = crd.spec as { group?: unknown; scope?: unknown; names?: { plural?: unknown } } | undefined;
  if (typeof spec?.group !== "string" || typeof spec.names?.plural !== "string") return undefined;
  return { keyPrefix: `/registry/${spec.group}/${spec.names.plural}/`, namespaced: spec.scope === "Namespaced", name: `${spec.names.plural}.${spec.group}` };
}

/** Every object's key is under a known type, with the segments its scope has. */
export function checkTypes(snapshot: Snapshot, builtin: readonly StoredType[], what = "snapshot"): void {
  const known = [...builtin];
  for (const o of snapshot.objects) {
    if (!o.key.startsWith(crdPrefix)) continue;
    const t = definedType(o.object);
    if (!t) throw new SnapshotError(`${what}: ${o.key}: the CustomResourceDefinition does not decode: spec.group and spec.names.plural must be strings`);
    known.push(t);
  }
  for (const o of snapshot.objects) {
    const t = known.find((k) => o.key.startsWith(k.keyPrefix));
    if (!t) throw new SnapshotError(`${what}: ${o.key}: no type this server stores keeps objects under this key (a custom resource needs its CustomResourceDefinition in the snapshot)`);
    const segments = o.key.slice(t.keyPrefix.length).split("/");
    if (segments.length !== (t.namespaced ? 2 : 1)) throw new SnapshotError(`${what}: ${o.key}: ${t.name} is ${t.namespaced ? "namespaced: its keys end in <namespace>/<name>" : "cluster-scoped: its keys end in <name>"}`);
    if (t.namespaced !== (o.object.metadata.namespace !== undefined)) throw new SnapshotError(`${what}: ${o.key}: metadata.namespace must be ${t.namespaced ? "set" : "absent"} for ${t.name}`);
  }
}

/**
 * Write order, so that watchers see a sensible sequence: what lives in a namespace or is a custom
 * resource goes before its namespace or definition when deleted, and after it when created.
 */
function rank(key: string): number {
  if (key.startsWith("/registry/namespaces/")) return 0;
  if (key.startsWith(crdPrefix)) return 1;
  return 2;
}

/** Deletes, updates and creates that turn `current` into the snapshot's state; unchanged keys are left alone. */
export function restorePlan(current: readonly KeyValue[], snapshot: Snapshot): WriteOp[] {
  const target = new Map(snapshot.objects.map((o) => [o.key, storedValue(o)]));
  const deletes: WriteOp[] = [];
  const updates: WriteOp[] = [];
  const have = new Set<string>();
  for (const kv of current) {
    have.add(kv.key);
    const want = target.get(kv.key);
    if (want === undefined) deletes.push({ kind: "delete", key: kv.key, expectedModRevision: kv.modRevision });
    else if (want !== kv.value) updates.push({ kind: "update", key: kv.key, value: want, expectedModRevision: kv.modRevision });
  }
  const creates: WriteOp[] = [];
  for (const [key, value] of target) if (!have.has(key)) creates.push({ kind: "create", key, value });
  deletes.sort((a, b) => rank(b.key) - rank(a.key));
  creates.sort((a, b) => rank(a.key) - rank(b.key));
  return [...deletes, ...updates, ...creates];
}
