// A finalizing controller's ear for what it is waiting on: objects it could not remove yet (a
// namespace's content, a deleted CRD's custom objects held by their finalizers). Upstream requeues
// such a key after an estimate or polls; kapi, which holds the store itself, watches the store from
// the revision read before the pass and queues the key again at the first relevant change. A
// removed finalizer then lets the owner go at once, and a test kit's settle() sees that
// re-examination as work in progress (the queued key) rather than a timer it does not wait for.
//
// One watch per held key, stopped at its first relevant event (the pass that follows holds the key
// again if something still remains), so nothing is followed once no key is held.
import type { Storage, Watcher } from "../storage/interface.js";

export interface ChangeFollower {
  /**
   * Queue `key` at the first change under `prefix` after `fromRevision` whose storage key
   * `relevant` accepts.
   */
  hold(key: string, fromRevision: number, prefix: string, relevant: (storageKey: string) => boolean): void;
  /** The key needs no ear any more (finalized, gone, or being examined). */
  release(key: string): void;
  stop(): void;
}

export function followChanges(storage: Storage, enqueue: (key: string) => void): ChangeFollower {
  const held = new Map<string, Watcher>();
  const release = (key: string) => {
    held.get(key)?.stop();
    held.delete(key);
  };
  const changed = (key: string) => {
    release(key);
    enqueue(key);
  };
  return {
    hold(key, fromRevision, prefix, relevant) {
      release(key);
      try {
        held.set(key, storage.watch(prefix, { afterRevision: fromRevision }, (ev) => {
          if (held.has(key) && relevant(ev.kv.key)) changed(key);
        }, () => {
          // The store closing or the history passing the revision: look again (a closed store
          // fails that pass, which the periodic resync covers).
          if (held.has(key)) changed(key);
        }));
      } catch {
        // The revision is out of the history window already: much has changed, look again now.
        enqueue(key);
      }
    },
    release,
    stop() {
      for (const key of [...held.keys()]) release(key);
    },
  };
}
