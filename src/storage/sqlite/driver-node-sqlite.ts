// Node's built-in node:sqlite behind SqlDatabase. Reached through process.getBuiltinModule so
// this file loads on Node 20 too, where the module does not exist (getBuiltinModule returns
// nothing there, and on 22.5–22.12 without --experimental-sqlite, and under --no-experimental-sqlite).
import type { SqlDatabase, SqlValue, SqliteDriver } from "./driver.js";

// The part of node:sqlite used here, declared locally: @types/node follows the oldest supported
// Node (20), which has no node:sqlite.
interface StatementSync {
  get(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): unknown[];
  run(...params: SqlValue[]): unknown;
}
interface DatabaseSync {
  readonly isTransaction: boolean;
  prepare(sql: string): StatementSync;
  exec(sql: string): void;
  close(): void;
}
type NodeSqlite = { DatabaseSync: new (path: string, opts?: { readOnly?: boolean }) => DatabaseSync };

function load(): NodeSqlite | undefined {
  const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  return get?.("node:sqlite") as NodeSqlite | undefined;
}

export const nodeSqliteDriver: SqliteDriver = {
  name: "node:sqlite",
  unavailable() {
    return load() ? undefined : `node:sqlite is not available in Node ${process.versions.node} (it needs 22.13 or later, not started with --no-experimental-sqlite)`;
  },
  open(path, opts) {
    const m = load();
    if (!m) throw new Error(nodeSqliteDriver.unavailable());
    const db = new m.DatabaseSync(path, { readOnly: opts?.readonly ?? false });
    // Prepared once: BEGIN/COMMIT run on every group commit.
    const begin = db.prepare("BEGIN");
    const commit = db.prepare("COMMIT");
    const rollback = db.prepare("ROLLBACK");
    return {
      driver: "node:sqlite",
      // A StatementSync already has get/all/run with the shapes SqlStatement names.
      prepare: (sql) => db.prepare(sql) as never,
      exec: (sql) => db.exec(sql),
      transaction(fn) {
        begin.run();
        try {
          fn();
          commit.run();
        } catch (e) {
          // A failed COMMIT (SQLITE_BUSY, a full disk) can leave the transaction open too.
          if (db.isTransaction) rollback.run();
          throw e;
        }
      },
      close: () => db.close(),
    } satisfies SqlDatabase;
  },
};
