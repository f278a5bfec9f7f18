// The garbage collector (upstream: the GC controller's graph builder and workers, in process):
// a graph of ownerReferences (owner-graph.ts) kept current by metadata informers of every stored type.
// - Background: when every owner of an object is gone, the object is deleted.
// - Foreground: an owner with the "foregroundDeletion" finalizer has its dependents deleted,
//   then loses the finalizer (and so is removed).
// - Orphan: an owner with the "orphan" finalizer has itself removed from its dependents'
//   ownerReferences, then loses the finalizer.
// Workers start once the informers of the types stored at start have synced, so the graph they
// judge by is complete (upstream waits for its monitors the same way; a type whose cache cannot
// load is waited for a few seconds only). An owner the informers do not show is confirmed absent
// by a live read before its dependents are collected.
import { deepClone } from "../apimachinery/json-value.js";
import { ApiError } from "../apimachinery/errors.js";
import type { InformerFactory } from "../registry/informer-factory.js";
import type { OwnerReference } from "../apimachinery/object.js";
import type { ResourceType } from "../registry/resource-type.js";
import { foregroundFinalizer, orphanFinalizer } from "../registry/store.js";
import type { Stores } from "../registry/stores.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import { informAboutEveryType, type EveryType } from "./every-type.js";
import { controllerManagerFieldManager } from "./field-manager.js";
import { runController, type Controller } from "../controller-runtime/controller.js";
import { fixedDelayRateLimiter } from "../controller-runtime/rate-limiter.js";
import { finalizersOf, isDeleting, OwnerGraph, uidOf, type GcNode } from "./owner-graph.js";

export interface GarbageCollectorDeps {
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
}

const retryMs = 500;

/** Namespace and name of a node's object, for the store's calls. */
const at = (n: GcNode): [string, string] => [n.meta.namespace ?? "", n.meta.name ?? ""];
const resyncMs = 30_000;

export function startGarbageCollector({ stores, types, informers }: GarbageCollectorDeps): Controller {
  // Made at setup, where the runtime's queue is known: the graph queues the uids it sees change.
  let graph!: OwnerGraph;
  let everyType!: EveryType;

  // Stored types by key prefix and by group/kind (for owner references), rebuilt on registry changes.
  let index: { byPrefix: Map<string, ResourceType>; byGroupKind: Map<string, ResourceType> } | undefined;
  const unsubscribe = types.subscribe(() => (index = undefined));
  function typeIndex() {
    if (index) return index;
    const stored = types.stored();
    index = { byPrefix: new Map(stored.map((t) => [t.keyPrefix, t])), byGroupKind: new Map(stored.map((t) => [`${t.group}/${t.kind}`, t])) };
    return index;
  }
  const ownerType = (o: OwnerReference) => typeIndex().byGroupKind.get(`${o.apiVersion.includes("/") ? o.apiVersion.split("/")[0] : ""}/${o.kind}`);

  async function examine(n: GcNode) {
    const t = typeIndex().byPrefix.get(n.prefix);
    if (!t) return; // its type is no longer served
    const deleting = isDeleting(n);
    if (deleting && finalizersOf(n).includes(orphanFinalizer)) await orphanDependents(t, n);
    else if (deleting && finalizersOf(n).includes(foregroundFinalizer)) await deleteDependentsInForeground(t, n);
    if (n.owners.length > 0 && !deleting) await collectIfOrphaned(t, n);
  }

  async function ownerExists(n: GcNode, o: OwnerReference): Promise<boolean> {
    if (graph.isGone(o.uid)) return false;
    const t = ownerType(o);
    if (!t) return false;
    const ns = t.namespaced ? (n.meta.namespace ?? "") : "";
    if (everyType.informer(t.keyPrefix)?.get(ns, o.name)?.metadata.uid === o.uid) return true;
    // Not in our view: confirm with a live read (the owner may be newer than the informer).
    try {
      const live = await stores.for(t).get(ns, o.name);
      return live.metadata.uid === o.uid && !graph.isGone(o.uid);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return false;
      throw e;
    }
  }

  async function collectIfOrphaned(t: ResourceType, n: GcNode) {
    const present: OwnerReference[] = [];
    const absent: OwnerReference[] = [];
    for (const o of n.owners) ((await ownerExists(n, o)) ? present : absent).push(o);
    if (absent.length === 0) {
      // An owner deleting in foreground takes its blocking dependents with it.
      const waiting = present.some((o) => {
        const owner = graph.node(o.uid);
        return owner && isDeleting(owner) && finalizersOf(owner).includes(foregroundFinalizer);
      });
      if (waiting) await stores.for(t).delete(...at(n), { dryRun: false, propagationPolicy: "Foreground" });
      return;
    }
    if (present.length === 0) {
      await stores.for(t).delete(...at(n), { dryRun: false, propagationPolicy: "Background" });
      return;
    }
    const gone = new Set(absent.map((o) => o.uid));
    await stores.for(t).update(...at(n), { subresource: "", createIfMissing: false, desired: (stored) => {
      if (!stored) throw new ApiError(404, "NotFound", "gone");
      const cur = deepClone(stored);
      cur.metadata.ownerReferences = (cur.metadata.ownerReferences ?? []).filter((o) => !gone.has(o.uid));
      return cur;
    } }, { dryRun: false, fieldManager: controllerManagerFieldManager });
  }

  async function removeFinalizer(t: ResourceType, n: GcNode, finalizer: string) {
    await stores.for(t).update(...at(n), { subresource: "", createIfMissing: false, desired: (stored) => {
      if (!stored) throw new ApiError(404, "NotFound", "gone");
      const cur = deepClone(stored);
      cur.metadata.finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer);
      return cur;
    } }, { dryRun: false, fieldManager: controllerManagerFieldManager });
  }

  async function orphanDependents(t: ResourceType, owner: GcNode) {
    for (const d of graph.dependentsOf(uidOf(owner))) {
      const dt = typeIndex().byPrefix.get(d.prefix);
      if (!dt) continue;
      await stores.for(dt).update(...at(d), { subresource: "", createIfMissing: false, desired: (stored) => {
        if (!stored) throw new ApiError(404, "NotFound", "gone");
        const cur = deepClone(stored);
        cur.metadata.ownerReferences = (cur.metadata.ownerReferences ?? []).filter((o) => o.uid !== uidOf(owner));
        return cur;
      } }, { dryRun: false, fieldManager: controllerManagerFieldManager }).catch((e) => {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      });
    }
    await removeFinalizer(t, owner, orphanFinalizer);
  }

  async function deleteDependentsInForeground(t: ResourceType, owner: GcNode) {
    const deps = graph.dependentsOf(uidOf(owner));
    if (deps.length === 0) {
      await removeFinalizer(t, owner, foregroundFinalizer);
      return;
    }
    for (const d of deps) {
      const dt = typeIndex().byPrefix.get(d.prefix);
      if (isDeleting(d) || !dt) continue; // already on its way; its delete event re-examines the owner
      const block = d.owners.find((o) => o.uid === uidOf(owner))?.blockOwnerDeletion;
      await stores.for(dt).delete(...at(d), { dryRun: false, propagationPolicy: block ? "Foreground" : "Background" }).catch((e) => {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      });
    }
  }

  return runController({
    name: "garbage-collector-controller",
    setup(ctx) {
      graph = new OwnerGraph((uid) => ctx.enqueue(uid));
      everyType = informAboutEveryType(types, informers, {
        handlerFor: (t) => ({
          added: (obj) => graph.observe(t.keyPrefix, obj),
          updated: (_old, obj) => graph.observe(t.keyPrefix, obj),
          deleted: (obj) => graph.forget(obj),
        }),
        removed: (prefix) => graph.forgetType(prefix),
      }, (informer, handler) => ctx.follow(informer, handler));
      ctx.onStop(() => everyType.stop());
      ctx.onStop(unsubscribe);
      // The graph is judged only once it holds every type stored at start.
      ctx.holdUntil(everyType.synced);
    },
    async reconcile(uid) {
      const n = graph.node(uid);
      if (n) await examine(n);
    },
    // Periodic resync catches anything a failed attempt left behind.
    resync: { everyMs: resyncMs, keys: () => graph.uids() },
    retryIf: (e) => !(e instanceof ApiError && (e.code === 404 || e.code === 409)),
    retry: fixedDelayRateLimiter(retryMs),
  });
}
