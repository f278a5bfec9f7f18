// The garbage collector (upstream: the GC controller's graph builder and workers, in process):
// an in-memory graph of ownerReferences kept current from one storage watch over everything.
// - Background: when every owner of an object is gone, the object is deleted.
// - Foreground: an owner with the "foregroundDeletion" finalizer has its dependents deleted,
//   then loses the finalizer (and so is removed).
// - Orphan: an owner with the "orphan" finalizer has itself removed from its dependents'
//   ownerReferences, then loses the finalizer.
import { ApiError } from "../apimachinery/errors.js";
import type { KObject, OwnerReference } from "../registry/object.js";
import type { ResourceType } from "../registry/resource-type.js";
import { foregroundFinalizer, orphanFinalizer, type GenericStore } from "../registry/store.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import type { Storage } from "../storage/interface.js";
import type { WatchEvent } from "../storage/interface.js";
import type { Controller } from "./namespace.js";

interface Node {
  key: string;
  type: ResourceType;
  namespace: string;
  name: string;
  uid: string;
  owners: OwnerReference[];
  finalizers: string[];
  deleting: boolean;
}

const retryMs = 500;

export function startGarbageCollector(store: GenericStore, storage: Storage, types: TypeRegistry): Controller {
  // One served version per stored group-resource: all versions share the key prefix.
  const byPrefix = new Map<string, ResourceType>();
  for (const t of types.all()) if (!t.virtual && !byPrefix.has(t.keyPrefix)) byPrefix.set(t.keyPrefix, types.preferred(t.group, t.resource) ?? t);

  // Only objects that matter to collection are parsed and kept: those with ownerReferences and
  // those being deleted. Every other write costs a substring test, not a JSON parse.
  const nodes = new Map<string, Node>(); // key → node
  const byUid = new Map<string, Node>();
  const liveUids = new Set<string>(); // uids known to exist (tracked, or confirmed by a read)
  // uids seen deleted (never reused), so a read racing a delete cannot mark them live again.
  const goneUids = new Set<string>();
  const maxGoneUids = 100_000;
  const dependents = new Map<string, Set<string>>(); // owner uid → dependent keys
  const queue = new Set<string>(); // keys to examine
  let stopped = false;
  let draining = false;
  let watcher: { stop(): void } | undefined;
  let timer: NodeJS.Timeout | undefined;

  function typeOfKey(key: string): ResourceType | undefined {
    const parts = key.split("/"); // ["", "registry", a, b, ...]
    return byPrefix.get(`/registry/${parts[2]}/`) ?? byPrefix.get(`/registry/${parts[2]}/${parts[3]}/`);
  }

  function unlink(n: Node) {
    for (const o of n.owners) dependents.get(o.uid)?.delete(n.key);
    if (byUid.get(n.uid) === n) byUid.delete(n.uid);
    nodes.delete(n.key);
  }

  function parse(value: string): KObject | undefined {
    try {
      return JSON.parse(value) as KObject;
    } catch {
      return undefined; // undecodable objects are left to an operator (unsafe deletion)
    }
  }

  /** A write (value) or a deletion (value undefined, `previous` the deleted bytes). */
  function observe(key: string, value: string | undefined, previous?: string) {
    const old = nodes.get(key);
    if (old) unlink(old);
    if (value === undefined) {
      const uid = old?.uid ?? (previous !== undefined ? parse(previous)?.metadata?.uid : undefined);
      if (!uid) return;
      liveUids.delete(uid);
      goneUids.add(uid);
      if (goneUids.size > maxGoneUids) goneUids.delete(goneUids.values().next().value as string);
      // Its dependents may now be orphans; owners waiting in foreground may now be done.
      for (const k of dependents.get(uid) ?? []) queue.add(k);
      for (const o of old?.owners ?? []) {
        const owner = byUid.get(o.uid);
        if (owner) queue.add(owner.key);
      }
      return;
    }
    if (!value.includes('"ownerReferences"') && !value.includes('"deletionTimestamp"')) return;
    const t = typeOfKey(key);
    if (!t) return;
    const obj = parse(value);
    if (!obj) return;
    const m = obj.metadata ?? {};
    const n: Node = {
      key,
      type: t,
      namespace: m.namespace ?? "",
      name: m.name ?? "",
      uid: m.uid ?? "",
      owners: Array.isArray(m.ownerReferences) ? m.ownerReferences.filter((o) => o && typeof o.uid === "string") : [],
      finalizers: m.finalizers ?? [],
      deleting: Boolean(m.deletionTimestamp),
    };
    nodes.set(key, n);
    if (n.uid) {
      byUid.set(n.uid, n);
      liveUids.add(n.uid);
    }
    for (const o of n.owners) {
      let set = dependents.get(o.uid);
      if (!set) dependents.set(o.uid, (set = new Set()));
      set.add(key);
    }
    if (n.owners.length > 0) queue.add(key);
    if (n.deleting && (n.finalizers.includes(orphanFinalizer) || n.finalizers.includes(foregroundFinalizer))) queue.add(key);
  }

  function onEvent(ev: WatchEvent) {
    if (ev.type === "delete") observe(ev.kv.key, undefined, ev.kv.value);
    else observe(ev.kv.key, ev.kv.value);
    kick();
  }

  function kick() {
    if (draining || stopped || queue.size === 0) return;
    draining = true;
    setImmediate(drain);
  }

  async function drain() {
    let done = 0;
    while (!stopped && queue.size > 0) {
      // Storage answers without real I/O, so awaits alone would never let requests in: yield.
      if (++done % 50 === 0) await new Promise((r) => setImmediate(r));
      const key = queue.values().next().value as string;
      queue.delete(key);
      const n = nodes.get(key);
      if (!n) continue;
      try {
        await examine(n);
      } catch (e) {
        if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) {
          setTimeout(() => {
            queue.add(key);
            kick();
          }, retryMs).unref();
        }
      }
    }
    draining = false;
    if (queue.size > 0) kick();
  }

  async function examine(n: Node) {
    if (n.deleting && n.finalizers.includes(orphanFinalizer)) await orphanDependents(n);
    else if (n.deleting && n.finalizers.includes(foregroundFinalizer)) await deleteDependentsInForeground(n);
    if (n.owners.length > 0 && !n.deleting) await collectIfOrphaned(n);
  }

  async function ownerExists(n: Node, o: OwnerReference): Promise<boolean> {
    if (goneUids.has(o.uid)) return false;
    if (liveUids.has(o.uid)) return true;
    // Not in the graph: confirm with a live read (the owner may be newer than our view).
    const [group, version] = o.apiVersion.includes("/") ? o.apiVersion.split("/") : ["", o.apiVersion];
    const t = types.all().find((x) => x.group === group && x.version === version && x.kind === o.kind) ?? types.all().find((x) => x.group === group && x.kind === o.kind);
    if (!t) return false;
    try {
      const live = await store.get(t, t.namespaced ? n.namespace : "", o.name);
      if (live.metadata.uid !== o.uid || goneUids.has(o.uid)) return false;
      liveUids.add(o.uid); // until its delete event
      return true;
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return false;
      throw e;
    }
  }

  async function collectIfOrphaned(n: Node) {
    const present: OwnerReference[] = [];
    const absent: OwnerReference[] = [];
    for (const o of n.owners) ((await ownerExists(n, o)) ? present : absent).push(o);
    if (absent.length === 0) {
      // An owner deleting in foreground takes its blocking dependents with it.
      const waiting = present.some((o) => {
        const owner = byUid.get(o.uid);
        return owner?.deleting && owner.finalizers.includes(foregroundFinalizer);
      });
      if (waiting) await store.delete(n.type, n.namespace, n.name, { dryRun: false, propagationPolicy: "Foreground" });
      return;
    }
    if (present.length === 0) {
      await store.delete(n.type, n.namespace, n.name, { dryRun: false, propagationPolicy: "Background" });
      return;
    }
    const gone = new Set(absent.map((o) => o.uid));
    await store.update(n.type, n.namespace, n.name, { subresource: "", createIfMissing: false, desired: (stored) => {
      if (!stored) throw new ApiError(404, "NotFound", "gone");
      const cur = structuredClone(stored);
      cur.metadata.ownerReferences = (cur.metadata.ownerReferences ?? []).filter((o) => !gone.has(o.uid));
      return cur;
    } }, { dryRun: false });
  }

  async function removeFinalizer(n: Node, finalizer: string) {
    await store.update(n.type, n.namespace, n.name, { subresource: "", createIfMissing: false, desired: (stored) => {
      if (!stored) throw new ApiError(404, "NotFound", "gone");
      const cur = structuredClone(stored);
      cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer);
      return cur;
    } }, { dryRun: false });
  }

  async function orphanDependents(owner: Node) {
    for (const key of [...(dependents.get(owner.uid) ?? [])]) {
      const d = nodes.get(key);
      if (!d) continue;
      await store.update(d.type, d.namespace, d.name, { subresource: "", createIfMissing: false, desired: (stored) => {
        if (!stored) throw new ApiError(404, "NotFound", "gone");
        const cur = structuredClone(stored);
        cur.metadata.ownerReferences = (cur.metadata.ownerReferences ?? []).filter((o) => o.uid !== owner.uid);
        return cur;
      } }, { dryRun: false }).catch((e) => {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      });
    }
    await removeFinalizer(owner, orphanFinalizer);
  }

  async function deleteDependentsInForeground(owner: Node) {
    const deps = [...(dependents.get(owner.uid) ?? [])].map((k) => nodes.get(k)).filter((d): d is Node => Boolean(d));
    if (deps.length === 0) {
      await removeFinalizer(owner, foregroundFinalizer);
      return;
    }
    for (const d of deps) {
      if (d.deleting) continue; // already on its way; its delete event re-examines the owner
      const block = d.owners.find((o) => o.uid === owner.uid)?.blockOwnerDeletion;
      await store.delete(d.type, d.namespace, d.name, { dryRun: false, propagationPolicy: block ? "Foreground" : "Background" }).catch((e) => {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      });
    }
  }

  // Build the graph from a snapshot, then follow every change after it.
  (async () => {
    const rev = await store.currentRevision();
    // Read in pages at one revision, yielding between them, so a large store does not hold the
    // event loop at start-up (requests go first); the watch then continues from that revision.
    let startAfter: string | undefined;
    for (;;) {
      const page = await storage.range("/registry/", { revision: rev, startAfter, limit: 1000 });
      if (stopped) return;
      for (const kv of page.items) observe(kv.key, kv.value);
      if (!page.more || page.items.length === 0) break;
      startAfter = page.items[page.items.length - 1].key;
      await new Promise((r) => setImmediate(r));
    }
    watcher = storage.watch("/registry/", { afterRevision: rev }, onEvent, () => undefined);
    kick();
    // Periodic resync catches anything a failed attempt left behind.
    timer = setInterval(() => {
      for (const n of nodes.values()) if (n.owners.length > 0 || n.deleting) queue.add(n.key);
      kick();
    }, 30_000);
    timer.unref();
  })().catch(() => undefined);

  return {
    stop() {
      stopped = true;
      watcher?.stop();
      if (timer) clearInterval(timer);
    },
  };
}
