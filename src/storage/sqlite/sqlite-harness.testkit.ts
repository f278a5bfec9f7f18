// The conformance harness of the sqlite backend (a fresh database in a temporary directory, which
// cleanup removes), shared by its own suite run and by the watch cache's run over it, once per
// driver this Node can run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StorageFactory } from "../conformance.testkit.js";
import type { SqliteDriverName } from "./driver.js";
import { availableSqliteDrivers } from "./drivers.js";
import { SqliteStorage } from "./sqlite-storage.js";

export function sqliteHarnessFor(driver?: SqliteDriverName): StorageFactory {
  return async (opts) => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-sqlite-"));
    const path = join(dir, "kapi.db");
    const open = () => SqliteStorage.open({ path, historyWindowMs: opts?.historyWindowMs, driver });
    let current = open();
    return {
      storage: current,
      reopen: async () => {
        await current.close();
        current = open();
        return current;
      },
      passTime: async (ms) => void (await current.expiry.sweep(Date.now() + ms)),
      cleanup: async () => {
        await current.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  };
}

/** One harness per driver available in this process, named for the suite titles. */
export function sqliteHarnesses(): { name: string; harness: StorageFactory }[] {
  return availableSqliteDrivers().map((d) => ({ name: `sqlite (${d.name})`, harness: sqliteHarnessFor(d.name) }));
}
