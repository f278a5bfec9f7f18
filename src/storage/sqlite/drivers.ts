// Which driver a sqlite store opens with: the one asked for, or the preferred one this Node can
// run. The preference is by measurement (README, "SQLite drivers").
import { betterSqlite3Driver } from "./driver-better-sqlite3.js";
import { nodeSqliteDriver } from "./driver-node-sqlite.js";
import type { SqliteDriver, SqliteDriverName } from "./driver.js";

/** In order of preference. */
export const sqliteDrivers: readonly SqliteDriver[] = [nodeSqliteDriver, betterSqlite3Driver];

export function sqliteDriver(name?: SqliteDriverName): SqliteDriver {
  if (name !== undefined) {
    const d = sqliteDrivers.find((x) => x.name === name);
    if (!d) throw new Error(`unknown sqlite driver ${JSON.stringify(name)}; known: ${sqliteDrivers.map((x) => x.name).join(", ")}`);
    const why = d.unavailable();
    if (why) throw new Error(why);
    return d;
  }
  const reasons: string[] = [];
  for (const d of sqliteDrivers) {
    const why = d.unavailable();
    if (!why) return d;
    reasons.push(why);
  }
  throw new Error(`no sqlite driver can run here: ${reasons.join("; ")}`);
}

/** The drivers this process can open, for running the conformance suite against each. */
export function availableSqliteDrivers(): SqliteDriver[] {
  return sqliteDrivers.filter((d) => d.unavailable() === undefined);
}
