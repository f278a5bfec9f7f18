// better-sqlite3 behind SqlDatabase. Required lazily: on a Node whose ABI the addon was not built
// for, loading it throws, and a process that uses node:sqlite or memory storage must not care.
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import type { SqlDatabase, SqliteDriver } from "./driver.js";

const require = createRequire(import.meta.url);
let loaded: { ctor: typeof BetterSqlite3 } | { error: string } | undefined;

function load(): { ctor: typeof BetterSqlite3 } | { error: string } {
  if (loaded) return loaded;
  try {
    const ctor = require("better-sqlite3") as typeof BetterSqlite3;
    // The addon itself is loaded by the first open; an in-memory one proves it matches this Node.
    new ctor(":memory:").close();
    loaded = { ctor };
  } catch (e) {
    loaded = { error: `better-sqlite3 cannot be loaded on Node ${process.versions.node}: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}` };
  }
  return loaded;
}

export const betterSqlite3Driver: SqliteDriver = {
  name: "better-sqlite3",
  unavailable() {
    const l = load();
    return "error" in l ? l.error : undefined;
  },
  open(path, opts) {
    const l = load();
    if ("error" in l) throw new Error(l.error);
    const db = new l.ctor(path, { readonly: opts?.readonly ?? false });
    return {
      driver: "better-sqlite3",
      prepare: (sql) => db.prepare(sql) as never,
      exec: (sql) => void db.exec(sql),
      transaction: (fn) => db.transaction(fn)(),
      close: () => void db.close(),
    } satisfies SqlDatabase;
  },
};
