// A backend whose every request is reported (operation, key, seconds, failed), for request
// metrics of a backend that does not time itself (etcd3-storage.ts does). Operations are named as
// kube-apiserver's etcd store names them: get, list, listWithCount, create, update, delete, txn,
// compact. Watches and the in-memory revision are not requests to the database.
import type { Storage, WatchEvent } from "../interface.js";

export type StorageRequestObserver = (operation: string, key: string, seconds: number, failed: boolean) => void;

/** What one storage watch of a prefix tells of what it received (events; etcd's progress notifications). */
export interface StorageWatchObserver {
  event: { inc(): void };
  bookmark(): void;
}

/** A watch's onEvent that counts each event first (found once per watch, not per event). */
export function countedEvents(seen: StorageWatchObserver | undefined, onEvent: (ev: WatchEvent) => void): (ev: WatchEvent) => void {
  if (!seen) return onEvent;
  const cell = seen.event;
  return (ev) => {
    cell.inc();
    onEvent(ev);
  };
}

export function observedStorage(backend: Storage, observe: StorageRequestObserver, watched?: (prefix: string) => StorageWatchObserver | undefined): Storage {
  const timed = <T>(operation: string, key: string, call: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    const done = (failed: boolean) => observe(operation, key, (performance.now() - start) / 1000, failed);
    let p: Promise<T>;
    try {
      p = call();
    } catch (e) {
      done(true);
      return Promise.reject(e);
    }
    return p.then(
      (v) => {
        done(false);
        return v;
      },
      (e: unknown) => {
        done(true);
        throw e;
      },
    );
  };
  return {
    currentRevision: (key) => backend.currentRevision(key),
    currentRevisionNow: (key) => backend.currentRevisionNow?.(key),
    compactedRevision: (key) => backend.compactedRevision(key),
    get: (key, opts) => timed("get", key, () => backend.get(key, opts)),
    range: (prefix, opts) => timed("list", prefix, () => backend.range(prefix, opts)),
    count: (prefix) => timed("listWithCount", prefix, () => backend.count(prefix)),
    watch: (prefix, opts, onEvent, onError) => backend.watch(prefix, opts, countedEvents(watched?.(prefix), onEvent), onError),
    create: (key, value, opts) => timed("create", key, () => backend.create(key, value, opts)),
    update: (key, value, expected, opts) => timed("update", key, () => backend.update(key, value, expected, opts)),
    delete: (key, expected) => timed("delete", key, () => backend.delete(key, expected)),
    transaction: (ops) => timed("txn", ops[0]?.key ?? "", () => backend.transaction(ops)),
    compact: (revision) => timed("compact", "", () => backend.compact(revision)),
    close: () => backend.close(),
    ...(backend.health ? { health: (ms: number) => backend.health!(ms) } : {}),
  };
}
