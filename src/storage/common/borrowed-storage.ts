// A storage one server uses but does not own: several servers of one process over the same
// backend (replica tests, an embedding program). Closing it ends this user's watches and refuses
// its further calls, and leaves the backend open for the others.
import { StorageError, type KeyValue, type RangeOptions, type RangeResult, type Storage, type WatchEvent, type WatchOptions, type Watcher } from "../interface.js";

export function borrowedStorage(backend: Storage): Storage {
  let closed = false;
  const watchers = new Set<{ w: Watcher; onError?: (err: Error) => void; prefix: string }>();
  const open = (key: string) => {
    if (closed) throw new StorageError("Closed", key, "storage is closed");
  };
  const guard = <T>(key: string, op: () => Promise<T>): Promise<T> => {
    try {
      open(key);
    } catch (e) {
      return Promise.reject(e);
    }
    return op();
  };
  return {
    currentRevision: (key?: string) => guard(key ?? "", () => backend.currentRevision(key)),
    currentRevisionNow: (key?: string) => {
      open(key ?? "");
      return backend.currentRevisionNow?.(key);
    },
    compactedRevision: (key?: string) => backend.compactedRevision(key),
    get: (key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> => guard(key, () => backend.get(key, opts)),
    range: (prefix: string, opts?: RangeOptions): Promise<RangeResult> => guard(prefix, () => backend.range(prefix, opts)),
    count: (prefix: string) => guard(prefix, () => backend.count(prefix)),
    watch(prefix: string, opts: WatchOptions, onEvent: (ev: WatchEvent) => void, onError?: (err: Error) => void): Watcher {
      open(prefix);
      const entry = { w: backend.watch(prefix, opts, onEvent, onError), onError, prefix };
      watchers.add(entry);
      return {
        stop() {
          watchers.delete(entry);
          entry.w.stop();
        },
      };
    },
    create: (key, value, opts) => guard(key, () => backend.create(key, value, opts)),
    update: (key, value, expected, opts) => guard(key, () => backend.update(key, value, expected, opts)),
    delete: (key, expected) => guard(key, () => backend.delete(key, expected)),
    transaction: (ops) => guard(ops[0]?.key ?? "", () => backend.transaction(ops)),
    compact: (revision) => guard("", () => backend.compact(revision)),
    async close() {
      if (closed) return;
      closed = true;
      for (const { w, onError, prefix } of [...watchers]) {
        w.stop();
        onError?.(new StorageError("Closed", prefix, "storage is closed"));
      }
      watchers.clear();
    },
  };
}
