// Runs the storage conformance suite against the watch cache over a backend: the harness wraps the
// backend's harness, so writes go to the backend and reads and watches are the cache's. A new
// backend's test file gets its cache tested with one call.
import { runStorageConformance, type StorageCapabilities, type StorageFactory } from "../conformance.testkit.js";
import { CachedStorage } from "./cached-storage.js";

/** The cache keeps its own ring of events (see StorageCapabilities.ownEventWindow). */
export const cachedStorageCapabilities: StorageCapabilities = { ownEventWindow: true };

/** A harness for the cache (over every key) in front of the storage `backend` makes. */
export function cachedHarness(backend: StorageFactory): StorageFactory {
  return async (opts) => {
    const inner = await backend(opts);
    const cacheOver = (storage: typeof inner.storage) =>
      new CachedStorage(storage, { prefix: "", cache: opts?.eventWindow ? { maxEvents: opts.eventWindow } : {} });
    let cached = cacheOver(inner.storage);
    const reopen = inner.reopen;
    return {
      storage: cached,
      passTime: (ms) => inner.passTime(ms),
      reopen: reopen
        ? async () => {
            await cached.close();
            cached = cacheOver(await reopen());
            return cached;
          }
        : undefined,
      cleanup: async () => {
        await cached.close();
        await inner.cleanup();
      },
    };
  };
}

/** The conformance suite against the watch cache over `backend` (whose own write ordering the cache keeps). */
export function runCachedStorageConformance(backendName: string, backend: StorageFactory, backendCapabilities?: Pick<StorageCapabilities, "unorderedConcurrentWrites" | "transactionSharesRevision">): void {
  runStorageConformance(`watch cache over ${backendName}`, cachedHarness(backend), { ...cachedStorageCapabilities, ...backendCapabilities });
}
