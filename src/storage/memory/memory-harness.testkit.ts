// The conformance harness of the memory backend, shared by its own suite run and by the watch
// cache's run over it.
import type { StorageFactory } from "../conformance.testkit.js";
import { MemoryStorage } from "./memory-storage.js";

export const memoryHarness: StorageFactory = async (opts) => {
  const storage = new MemoryStorage({ historyWindowMs: opts?.historyWindowMs });
  return { storage, passTime: async (ms) => void (await storage.expiry.sweep(Date.now() + ms)), cleanup: () => storage.close() };
};
