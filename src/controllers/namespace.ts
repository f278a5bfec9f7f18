// Namespace lifecycle (upstream: the namespace controller): a namespace being deleted has all
// its content deleted, then its `kubernetes` finalizer removed, then it is gone.
import type { KObject } from "../registry/object.js";
import { storagePrefix, type ResourceType } from "../registry/resource-type.js";
import type { GenericStore } from "../registry/store.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import type { Storage } from "../storage/interface.js";
import { decodeFromStorage } from "../registry/codec.js";

export interface Controller {
  stop(): void;
}

const resyncMs = 2000;

export function startNamespaceController(store: GenericStore, storage: Storage, types: TypeRegistry): Controller {
  const nsType = types.get("", "v1", "namespaces")!;
  // One served version per group-resource: they share storage.
  const seen = new Set<string>();
  const namespaced: ResourceType[] = [];
  for (const t of types.all()) {
    if (!t.namespaced || t.virtual || seen.has(t.keyPrefix)) continue;
    seen.add(t.keyPrefix);
    namespaced.push(t);
  }
  let stopped = false;
  let running = false;
  const busy = new Set<string>();

  async function finalize(ns: KObject): Promise<void> {
    const name = ns.metadata.name!;
    if (busy.has(name)) return;
    busy.add(name);
    try {
      let remaining = 0;
      for (const t of namespaced) {
        const res = await storage.range(storagePrefix(t, name));
        for (const kv of res.items) {
          const obj = decodeFromStorage(kv, t);
          remaining++;
          if (obj.metadata.deletionTimestamp) continue;
          try {
            await store.delete(t, name, obj.metadata.name!, { dryRun: false });
          } catch {
            // gone already, or changed: the next pass sees it again
          }
        }
      }
      if (remaining > 0) return;
      await store.update(nsType, "", name, { subresource: "finalize", createIfMissing: false, desired: (stored) => {
        if (!stored) throw new Error("gone");
        const cur = structuredClone(stored);
        const spec = (cur.spec ?? {}) as { finalizers?: string[] };
        cur.spec = { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== "kubernetes") };
        return cur;
      } }, { dryRun: false }).catch(() => undefined);
      // With no finalizers left at all the object can go.
      const cur = await store.get(nsType, "", name).catch(() => undefined);
      if (cur && ((cur.spec as any)?.finalizers ?? []).length === 0 && (cur.metadata.finalizers ?? []).length === 0) {
        await store.delete(nsType, "", name, { dryRun: false }).catch(() => undefined);
      }
    } finally {
      busy.delete(name);
    }
  }

  async function pass(): Promise<void> {
    if (running || stopped) return;
    running = true;
    try {
      const res = await storage.range(nsType.keyPrefix);
      for (const kv of res.items) {
        const ns = decodeFromStorage(kv, nsType);
        if (ns.metadata.deletionTimestamp) await finalize(ns);
      }
    } catch {
      // storage closing; the next pass retries
    } finally {
      running = false;
    }
  }

  const timer = setInterval(pass, resyncMs);
  timer.unref();
  let watcher: { stop(): void } | undefined;
  store.currentRevision().then((rev) => {
    if (stopped) return;
    watcher = storage.watch(nsType.keyPrefix, { afterRevision: rev }, (ev) => {
      if (ev.type === "put" && ev.kv.value.includes('"deletionTimestamp"')) setImmediate(pass);
    }, () => undefined);
  });
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      watcher?.stop();
    },
  };
}
