// The namespace controller's ear for the content of a namespace it could not empty yet (objects
// with finalizers, pods in graceful deletion). Upstream requeues such a namespace after an
// estimate (half of 15 s for finalizers, plus one) and has nothing else to go on; kapi, which
// holds the store itself, watches the store from the revision read before the pass and queues
// the namespace again at the first change of anything in it. A removed finalizer then lets the
// namespace go at once, and a test kit's settle() sees that re-examination as work in progress
// (the queued key) rather than a timer it does not wait for.
//
// One watch per held namespace, stopped at its first relevant event (the pass that follows holds
// the namespace again if content still remains), so nothing is followed once no namespace is held.
import type { Storage, Watcher } from "../storage/interface.js";
import type { TypeRegistry } from "../registry/type-registry.js";

export interface ContentFollower {
  /** Queue `namespace` at the first change of its content after `fromRevision`. */
  hold(namespace: string, fromRevision: number): void;
  /** The namespace needs no ear any more (finalized, gone, or being examined). */
  release(namespace: string): void;
  stop(): void;
}

/** Whether `key` is the storage key of an object of a namespaced type in `namespace`. */
export function isContentKey(types: TypeRegistry, key: string, namespace: string): boolean {
  const infix = `/${namespace}/`;
  if (!key.includes(infix)) return false;
  return types.stored().some((t) => t.namespaced && key.startsWith(t.keyPrefix + namespace + "/"));
}

export function followContent(storage: Storage, types: TypeRegistry, enqueue: (namespace: string) => void): ContentFollower {
  const held = new Map<string, Watcher>();
  const release = (namespace: string) => {
    held.get(namespace)?.stop();
    held.delete(namespace);
  };
  const changed = (namespace: string) => {
    release(namespace);
    enqueue(namespace);
  };
  return {
    hold(namespace, fromRevision) {
      release(namespace);
      try {
        held.set(namespace, storage.watch("/registry/", { afterRevision: fromRevision }, (ev) => {
          if (held.has(namespace) && isContentKey(types, ev.kv.key, namespace)) changed(namespace);
        }, () => {
          // The store closing or the history passing the revision: look again (a closed store
          // fails that pass, which the periodic resync covers).
          if (held.has(namespace)) changed(namespace);
        }));
      } catch {
        // The revision is out of the history window already: much has changed, look again now.
        enqueue(namespace);
      }
    },
    release,
    stop() {
      for (const namespace of [...held.keys()]) release(namespace);
    },
  };
}
