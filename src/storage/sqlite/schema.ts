// On-disk layout of the sqlite backend.
//
// log:     append-only, one row per write; row id IS the revision. A deletion is a row with
//          deleted = 1 that also carries the deleted value, so a delete event (and its prevKv) can
//          be rebuilt from that row alone even after older rows are compacted away.
//          prev_revision = the key's previous modRevision (0 for a create).
// current: key → id of its live log row; makes get/range at the current revision an index lookup
//          instead of a max(id) per key. Maintained in the same transaction as the log.
// meta:    'revision' (the highest revision ever issued, kept explicitly because compaction may
//          remove the newest row's predecessors and a deleted latest key must not let a
//          revision be reused) and 'compacted'.
// expiry:  key → when it expires (ms since the epoch), for keys whose live value was written with
//          a TTL; indexed by time for the sweep. Such a key's replaced rows are deleted with the
//          write that replaces them (no history for short-lived keys, see PutOptions).
import type { SqlDatabase } from "./driver.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS log (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  deleted INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS log_key_id ON log (key, id);
CREATE TABLE IF NOT EXISTS current (
  key TEXT PRIMARY KEY,
  id INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS expiry (
  key TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS expiry_at ON expiry (expires_at);
`;

export interface StoredState {
  revision: number;
  compacted: number;
  /** Keys whose live value has a TTL. */
  expiring: string[];
}

/** Set durability pragmas, create tables if needed and read the persisted counters. */
export function initialise(db: SqlDatabase): StoredState {
  db.exec("PRAGMA journal_mode = WAL");
  // FULL: the WAL is fsynced on every commit, so an acknowledged write survives power loss.
  db.exec("PRAGMA synchronous = FULL");
  db.exec("PRAGMA busy_timeout = 5000");
  // One transaction: a new database's tables and indexes cost one commit (one WAL fsync) rather
  // than one each (measured: ~8 → ~3 ms wall, ~2.2 → ~1.4 ms CPU on a new file); an existing
  // database's statements change nothing.
  db.transaction(() => db.exec(SCHEMA));
  const meta = (name: string) =>
    (db.prepare("SELECT value FROM meta WHERE name = ?").get(name) as { value: number } | undefined)?.value ?? 0;
  const maxId = (db.prepare("SELECT max(id) AS m FROM log").get() as { m: number | null }).m ?? 0;
  const expiring = (db.prepare("SELECT key FROM expiry").all() as { key: string }[]).map((r) => r.key);
  return { revision: Math.max(meta("revision"), maxId), compacted: meta("compacted"), expiring };
}
