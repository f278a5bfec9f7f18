// The conformance harness of the sqlite backend (a fresh database in a temporary directory, which
// cleanup removes), shared by its own suite run and by the watch cache's run over it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StorageFactory } from "../conformance.testkit.js";
import { SqliteStorage } from "./sqlite-storage.js";

export const sqliteHarness: StorageFactory = async (opts) => {
  const dir = mkdtempSync(join(tmpdir(), "kapi-sqlite-"));
  const path = join(dir, "kapi.db");
  const open = () => SqliteStorage.open({ path, historyWindowMs: opts?.historyWindowMs });
  let current = open();
  return {
    storage: current,
    reopen: async () => {
      await current.close();
      current = open();
      return current;
    },
    cleanup: async () => {
      await current.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
