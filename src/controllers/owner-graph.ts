// The garbage collector's graph (upstream: the GC's GraphBuilder): who owns whom, from the
// objects the informers report. Only objects that matter to collection become nodes — those
// with ownerReferences and those being deleted — and a node keeps references into the informer's
// shared object (never copies, never mutations).
import type { KObject, OwnerReference } from "../registry/object.js";

export interface GcNode {
  /** Storage key: <type prefix><namespace>/<name> or <type prefix><name>. */
  key: string;
  /** The key prefix of its type (which group-resource it is). */
  prefix: string;
  namespace: string;
  name: string;
  uid: string;
  owners: readonly OwnerReference[];
  finalizers: readonly string[];
  deleting: boolean;
}

/** Uids remembered as deleted (uids are never reused), so a lagging read cannot revive them. */
const maxGoneUids = 100_000;

export class OwnerGraph {
  private readonly nodes = new Map<string, GcNode>(); // key → node
  private readonly byUid = new Map<string, GcNode>();
  private readonly dependents = new Map<string, Set<string>>(); // owner uid → dependent keys
  private readonly goneUids = new Set<string>();

  /** `dirty(key)`: the node at key needs examining (its own change, or its owner's/dependent's). */
  constructor(private readonly dirty: (key: string) => void) {}

  /** An object was added or changed. */
  observe(prefix: string, namespaced: boolean, obj: KObject): void {
    const m = obj.metadata;
    const key = keyOf(prefix, namespaced, m.namespace ?? "", m.name ?? "");
    const old = this.nodes.get(key);
    if (old) this.unlink(old);
    const owners = Array.isArray(m.ownerReferences) ? m.ownerReferences.filter((o) => o && typeof o.uid === "string") : [];
    const deleting = Boolean(m.deletionTimestamp);
    if (owners.length === 0 && !deleting) return;
    const n: GcNode = { key, prefix, namespace: m.namespace ?? "", name: m.name ?? "", uid: m.uid ?? "", owners, finalizers: m.finalizers ?? [], deleting };
    this.nodes.set(key, n);
    if (n.uid) this.byUid.set(n.uid, n);
    for (const o of owners) {
      let set = this.dependents.get(o.uid);
      if (!set) this.dependents.set(o.uid, (set = new Set()));
      set.add(key);
    }
    this.dirty(key);
  }

  /** An object was deleted: its dependents may be orphans, owners waiting in foreground may be done. */
  forget(prefix: string, namespaced: boolean, obj: KObject): void {
    const m = obj.metadata;
    const old = this.nodes.get(keyOf(prefix, namespaced, m.namespace ?? "", m.name ?? ""));
    if (old) this.unlink(old);
    const uid = m.uid;
    if (!uid) return;
    this.goneUids.add(uid);
    if (this.goneUids.size > maxGoneUids) this.goneUids.delete(this.goneUids.values().next().value as string);
    for (const k of this.dependents.get(uid) ?? []) this.dirty(k);
    for (const o of m.ownerReferences ?? []) {
      const owner = this.byUid.get(o.uid);
      if (owner) this.dirty(owner.key);
    }
  }

  /** A type stopped being served: its objects leave the graph (their dependents are re-examined). */
  forgetType(prefix: string): void {
    for (const n of [...this.nodes.values()]) {
      if (n.prefix !== prefix) continue;
      this.unlink(n);
      for (const k of this.dependents.get(n.uid) ?? []) this.dirty(k);
    }
  }

  node(key: string): GcNode | undefined {
    return this.nodes.get(key);
  }

  /** The node of an owner, when the owner itself is in the graph (it has owners or is deleting). */
  byOwnerUid(uid: string): GcNode | undefined {
    return this.byUid.get(uid);
  }

  dependentsOf(uid: string): GcNode[] {
    const out: GcNode[] = [];
    for (const k of this.dependents.get(uid) ?? []) {
      const d = this.nodes.get(k);
      if (d) out.push(d);
    }
    return out;
  }

  isGone(uid: string): boolean {
    return this.goneUids.has(uid);
  }

  /** Every node (each has owners or is being deleted: all may need work). */
  all(): Iterable<GcNode> {
    return this.nodes.values();
  }

  private unlink(n: GcNode): void {
    for (const o of n.owners) {
      const set = this.dependents.get(o.uid);
      set?.delete(n.key);
      if (set?.size === 0) this.dependents.delete(o.uid);
    }
    if (this.byUid.get(n.uid) === n) this.byUid.delete(n.uid);
    this.nodes.delete(n.key);
  }
}

export function keyOf(prefix: string, namespaced: boolean, namespace: string, name: string): string {
  return namespaced ? `${prefix}${namespace}/${name}` : `${prefix}${name}`;
}
