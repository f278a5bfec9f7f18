// Namespace lifecycle (upstream: the namespace controller): a namespace being deleted has all
// its content deleted, then its `kubernetes` finalizer removed, then it is gone.
//
// It hears of namespaces with a deletionTimestamp from the namespace (metadata) informer, and
// re-examines every terminating namespace periodically (content that takes time to go, such as
// pods in graceful deletion or objects with finalizers; attempts that failed). Content is
// enumerated with the store's consistent list — not informer views, which may lag behind a create
// admitted just before the namespace began terminating, and not the watch caches, which would be
// loaded in full for every namespaced type — for every namespaced type served at that moment, so
// types added later (custom resources) are included.
import { KeyQueue } from "../registry/work-queue.js";
import { deepClone } from "../apimachinery/json-value.js";
import { listObjects } from "../registry/list.js";
import { parseListOptions } from "../registry/list-options.js";
import type { InformerFactory } from "../registry/informer-factory.js";
import type { KObject } from "../registry/object.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { GenericStore } from "../registry/store.js";
import type { TypeRegistry } from "../registry/type-registry.js";

export interface Controller {
  stop(): void;
}

export interface NamespaceControllerDeps {
  store: GenericStore;
  types: TypeRegistry;
  informers: InformerFactory;
}

const resyncMs = 2000;
const kubernetesFinalizer = "kubernetes";

const isTerminating = (ns: KObject | undefined) => Boolean(ns?.metadata.deletionTimestamp);
/** A plain list: everything, consistent (resourceVersion unset). */
const everything = parseListOptions(new URLSearchParams());

export function startNamespaceController({ store, types, informers }: NamespaceControllerDeps): Controller {
  const nsType = types.get("", "v1", "namespaces")!;
  const namespaces = informers.metadataFor(nsType);
  // One namespace at a time, in the order they were queued. A failure (storage closing, a
  // conflict) is left to the next resync.
  const queue = new KeyQueue((name) => finalize(name));
  const enqueue = (name: string) => queue.add(name);

  const listContent = async (t: ResourceType, ns: string): Promise<KObject[]> =>
    (await listObjects(store, t, ns, everything)).items;

  /** Deletes what is in the namespace; returns how many objects remain after that. */
  async function deleteContent(ns: string): Promise<number> {
    const namespaced = types.stored().filter((t) => t.namespaced);
    for (const t of namespaced) {
      for (const obj of await listContent(t, ns)) {
        if (obj.metadata.deletionTimestamp) continue; // already going
        await store.delete(t, ns, obj.metadata.name!, { dryRun: false }).catch(() => undefined); // gone already, or changed: counted below
      }
    }
    // Listed again, as upstream verifies: what remains keeps the namespace until the next pass.
    let remaining = 0;
    for (const t of namespaced) remaining += (await listContent(t, ns)).length;
    return remaining;
  }

  async function finalize(name: string): Promise<void> {
    if (!isTerminating(namespaces.get("", name))) return;
    if ((await deleteContent(name)) > 0) return;
    await store.update(nsType, "", name, { subresource: "finalize", createIfMissing: false, desired: (stored) => {
      if (!stored) throw new Error("gone");
      const cur = deepClone(stored);
      const spec = (cur.spec ?? {}) as { finalizers?: string[] };
      cur.spec = { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== kubernetesFinalizer) };
      return cur;
    } }, { dryRun: false }).catch(() => undefined);
    // With no finalizers left at all the object can go.
    const cur = await store.get(nsType, "", name).catch(() => undefined);
    if (cur && ((cur.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).length === 0 && (cur.metadata.finalizers ?? []).length === 0) {
      await store.delete(nsType, "", name, { dryRun: false }).catch(() => undefined);
    }
  }

  const removeHandler = namespaces.addHandler({
    added: (ns) => isTerminating(ns) && enqueue(ns.metadata.name!),
    updated: (_old, ns) => isTerminating(ns) && enqueue(ns.metadata.name!),
  });
  const timer = setInterval(() => {
    for (const ns of namespaces.list()) if (isTerminating(ns)) enqueue(ns.metadata.name!);
  }, resyncMs);
  timer.unref();
  return {
    stop() {
      queue.stop();
      clearInterval(timer);
      removeHandler();
    },
  };
}
