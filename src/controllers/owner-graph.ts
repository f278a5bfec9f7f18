// The garbage collector's graph (upstream: the GC's GraphBuilder): who owns whom, from the
// objects the informers report, keyed by uid (as upstream's graph). Only objects that matter to
// collection become nodes — those with ownerReferences and those being deleted — and a node
// points into the informer's shared metadata rather than copying it (never mutating it).
import type { KObject, ObjectMeta, OwnerReference } from "../apimachinery/object.js";

export interface GcNode {
  /** The key prefix of its type (which group-resource it is). */
  prefix: string;
  /** The object's metadata as the informer holds it: shared and read-only. */
  meta: Readonly<ObjectMeta>;
  /** Its well-formed ownerReferences. */
  owners: readonly OwnerReference[];
}

export const uidOf = (n: GcNode) => n.meta.uid!;
export const isDeleting = (n: GcNode) => Boolean(n.meta.deletionTimestamp);
export const finalizersOf = (n: GcNode): readonly string[] => n.meta.finalizers ?? [];

/** Uids remembered as deleted (uids are never reused), so a lagging read cannot revive them. */
const maxGoneUids = 100_000;

export class OwnerGraph {
  private readonly nodes = new Map<string, GcNode>(); // uid → node
  private readonly dependents = new Map<string, Set<string>>(); // owner uid → dependent uids
  private readonly goneUids = new Set<string>();

  /** `dirty(uid)`: the node needs examining (its own change, or its owner's or dependent's). */
  constructor(private readonly dirty: (uid: string) => void) {}

  /** An object was added or changed. */
  observe(prefix: string, obj: KObject): void {
    const meta = obj.metadata;
    const uid = meta.uid;
    if (!uid) return;
    const old = this.nodes.get(uid);
    if (old) this.unlink(old);
    const refs = Array.isArray(meta.ownerReferences) ? meta.ownerReferences : [];
    const owners = refs.every((o) => wellFormed(o)) ? refs : refs.filter(wellFormed);
    if (owners.length === 0 && !meta.deletionTimestamp) return;
    this.nodes.set(uid, { prefix, meta, owners });
    for (const o of owners) {
      let set = this.dependents.get(o.uid);
      if (!set) this.dependents.set(o.uid, (set = new Set()));
      set.add(uid);
    }
    this.dirty(uid);
  }

  /** An object was deleted: its dependents may be orphans, owners waiting in foreground may be done. */
  forget(obj: KObject): void {
    const meta = obj.metadata;
    const uid = meta.uid;
    if (!uid) return;
    const old = this.nodes.get(uid);
    if (old) this.unlink(old);
    this.goneUids.add(uid);
    if (this.goneUids.size > maxGoneUids) this.goneUids.delete(this.goneUids.values().next().value as string);
    for (const d of this.dependents.get(uid) ?? []) this.dirty(d);
    for (const o of meta.ownerReferences ?? []) if (this.nodes.has(o.uid)) this.dirty(o.uid);
  }

  /** A type stopped being served: its objects leave the graph (their dependents are re-examined). */
  forgetType(prefix: string): void {
    for (const n of [...this.nodes.values()]) {
      if (n.prefix !== prefix) continue;
      this.unlink(n);
      for (const d of this.dependents.get(uidOf(n)) ?? []) this.dirty(d);
    }
  }

  node(uid: string): GcNode | undefined {
    return this.nodes.get(uid);
  }

  dependentsOf(uid: string): GcNode[] {
    const out: GcNode[] = [];
    for (const d of this.dependents.get(uid) ?? []) {
      const n = this.nodes.get(d);
      if (n) out.push(n);
    }
    return out;
  }

  isGone(uid: string): boolean {
    return this.goneUids.has(uid);
  }

  /** Uids of every node (each has owners or is being deleted: all may need work). */
  uids(): Iterable<string> {
    return this.nodes.keys();
  }

  private unlink(n: GcNode): void {
    const uid = uidOf(n);
    for (const o of n.owners) {
      const set = this.dependents.get(o.uid);
      set?.delete(uid);
      if (set?.size === 0) this.dependents.delete(o.uid);
    }
    this.nodes.delete(uid);
  }
}

function wellFormed(o: OwnerReference | undefined): o is OwnerReference {
  return Boolean(o) && typeof o!.uid === "string";
}
