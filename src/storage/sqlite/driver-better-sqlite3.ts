// better-sqlite3 behind SqlDatabase. Required lazily: on a Node whose ABI the addon was not built
// for, loading it throws, and a process that uses node:sqlite or memory storage must not care.
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import { requireBetterSqlite3 } from "./better-sqlite3-package.js";
import type { SqlDatabase, SqliteDriver } from "./driver.js";

const require = createRequire(import.meta.url);
type Loaded = { ctor: typeof BetterSqlite3; nativeBinding: string } | { error: string };
let loaded: Loaded | undefined;

/**
 * Where the package's install built (or fetched) the addon, given to the constructor: the
 * package's own lookup (the `bindings` package) would search from the bundle's directory.
 */
function addonPath(): string {
  for (const build of ["Release", "Debug"]) {
    try {
      return require.resolve(`better-sqlite3/build/${build}/better_sqlite3.node`);
    } catch {
      // the next one
    }
  }
  throw new Error("its addon is not built (no build/Release or build/Debug better_sqlite3.node in the installed package)");
}

function load(): Loaded {
  if (loaded) return loaded;
  try {
    const ctor = requireBetterSqlite3();
    const nativeBinding = addonPath();
    // The addon itself is loaded by the first open; an in-memory one proves it matches this Node.
    new ctor(":memory:", { nativeBinding }).close();
    loaded = { ctor, nativeBinding };
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
    const db = new l.ctor(path, { readonly: opts?.readonly ?? false, nativeBinding: l.nativeBinding });
    return {
      driver: "better-sqlite3",
      prepare: (sql) => db.prepare(sql) as never,
      exec: (sql) => void db.exec(sql),
      transaction: (fn) => db.transaction(fn)(),
      close: () => void db.close(),
    } satisfies SqlDatabase;
  },
};
