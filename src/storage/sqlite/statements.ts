// Prepared statements and row mapping for the sqlite backend. Range queries come in a few shapes
// (bounded/unbounded prefix, inclusive/exclusive start, current/historical); each shape is
// prepared once on first use and cached.
import type { SqlDatabase, SqlStatement } from "./driver.js";
import type { KeyValue, WatchEvent } from "../interface.js";

export interface LogRow {
  id: number;
  key: string;
  value: string;
  create_revision: number;
  prev_revision: number;
  deleted: number;
  prev_value?: string | null;
}

export interface KeyBounds {
  lower: string;
  /** true: key > lower (paging after startAfter); false: key >= lower (the prefix itself). */
  lowerExclusive: boolean;
  /** Exclusive upper bound, absent for the empty prefix. */
  upper?: string;
}

export function rowToKv(r: Pick<LogRow, "id" | "key" | "value" | "create_revision">): KeyValue {
  return { key: r.key, value: r.value, createRevision: r.create_revision, modRevision: r.id };
}

export function rowToEvent(r: LogRow): WatchEvent {
  const kv = rowToKv(r);
  if (r.deleted) {
    const prevKv = { key: r.key, value: r.value, createRevision: r.create_revision, modRevision: r.prev_revision };
    return { type: "delete", kv, prevKv, revision: r.id };
  }
  const ev: WatchEvent = { type: "put", kv, revision: r.id };
  if (r.prev_revision > 0 && r.prev_value != null) {
    ev.prevKv = { key: r.key, value: r.prev_value, createRevision: r.create_revision, modRevision: r.prev_revision };
  }
  return ev;
}

export class Statements {
  readonly current: SqlStatement<[string], LogRow>;
  readonly atRevision: SqlStatement<[string, number], LogRow>;
  readonly insertLog: SqlStatement<[number, string, string, number, number, number]>;
  readonly setCurrent: SqlStatement<[string, number]>;
  readonly deleteCurrent: SqlStatement<[string]>;
  readonly setMeta: SqlStatement<[string, number]>;
  readonly compactSuperseded: SqlStatement<[number, number]>;
  readonly compactTombstones: SqlStatement<[number, number]>;
  readonly deleteRow: SqlStatement<[number]>;
  readonly setExpiry: SqlStatement<[string, number]>;
  readonly clearExpiry: SqlStatement<[string]>;
  readonly dueKeys: SqlStatement<[number, number], { key: string; id: number }>;
  private readonly cache = new Map<string, SqlStatement>();

  constructor(private readonly db: SqlDatabase) {
    this.current = db.prepare(
      `SELECT l.id, l.key, l.value, l.create_revision, l.prev_revision, l.deleted
       FROM current c JOIN log l ON l.id = c.id WHERE c.key = ?`,
    );
    this.atRevision = db.prepare(
      `SELECT id, key, value, create_revision, prev_revision, deleted
       FROM log WHERE key = ? AND id <= ? ORDER BY id DESC LIMIT 1`,
    );
    this.insertLog = db.prepare(
      `INSERT INTO log (id, key, value, create_revision, prev_revision, deleted) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.setCurrent = db.prepare(
      `INSERT INTO current (key, id) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET id = excluded.id`,
    );
    this.deleteCurrent = db.prepare(`DELETE FROM current WHERE key = ?`);
    this.setMeta = db.prepare(
      `INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
    );
    // Rows in [from, to) that replaced an older value make that older row unreachable from any
    // revision >= to; deletions in [from, to) are not needed once nothing can read before them.
    this.compactSuperseded = db.prepare(
      `DELETE FROM log WHERE id IN
         (SELECT prev_revision FROM log WHERE id >= ? AND id < ? AND prev_revision > 0)`,
    );
    this.compactTombstones = db.prepare(`DELETE FROM log WHERE id >= ? AND id < ? AND deleted = 1`);
    this.deleteRow = db.prepare(`DELETE FROM log WHERE id = ?`);
    this.setExpiry = db.prepare(
      `INSERT INTO expiry (key, expires_at) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at`,
    );
    this.clearExpiry = db.prepare(`DELETE FROM expiry WHERE key = ?`);
    this.dueKeys = db.prepare(
      `SELECT e.key, c.id FROM expiry e JOIN current c ON c.key = e.key WHERE e.expires_at <= ? ORDER BY e.expires_at LIMIT ?`,
    );
  }

  /** Live rows within bounds, in key order, at the current revision or at `revision`. */
  rangeRows(b: KeyBounds, revision: number | undefined, limit: number): LogRow[] {
    const sql = revision === undefined ? this.currentRangeSql(b, false) : this.historicRangeSql(b, false);
    const params = this.params(b, revision);
    return this.stmt(sql).all(...params, limit) as LogRow[];
  }

  /** Number of live keys within bounds at the current revision or at `revision`. */
  countRows(b: KeyBounds, revision: number | undefined): number {
    const sql = revision === undefined ? this.currentRangeSql(b, true) : this.historicRangeSql(b, true);
    return (this.stmt(sql).get(...this.params(b, revision)) as { n: number }).n;
  }

  /** Log rows with id > after whose key is within bounds, in revision order, for watch replay. */
  replayRows(b: KeyBounds, after: number): LogRow[] {
    const sql = `SELECT l.id, l.key, l.value, l.create_revision, l.prev_revision, l.deleted,
                        p.value AS prev_value
                 FROM log l LEFT JOIN log p ON p.id = l.prev_revision AND l.deleted = 0
                 WHERE l.id > ? AND ${this.where(b, "l.key")} ORDER BY l.id`;
    return this.stmt(sql).all(after, ...this.params(b, undefined)) as LogRow[];
  }

  private currentRangeSql(b: KeyBounds, count: boolean): string {
    const cols = count ? "count(*) AS n" : "l.id, l.key, l.value, l.create_revision";
    const from = count ? "current c" : "current c JOIN log l ON l.id = c.id";
    const tail = count ? "" : " ORDER BY c.key LIMIT ?";
    return `SELECT ${cols} FROM ${from} WHERE ${this.where(b, "c.key")}${tail}`;
  }

  // The latest row at or below the revision for each key; bare columns of a max() aggregate come
  // from the row holding the max, so value/deleted belong to that version.
  private historicRangeSql(b: KeyBounds, count: boolean): string {
    const inner = `SELECT key, max(id) AS id, value, create_revision, deleted FROM log
                   WHERE ${this.where(b, "key")} AND id <= ? GROUP BY key`;
    if (count) return `SELECT count(*) AS n FROM (${inner}) WHERE deleted = 0`;
    return `SELECT id, key, value, create_revision FROM (${inner}) WHERE deleted = 0 ORDER BY key LIMIT ?`;
  }

  private where(b: KeyBounds, col: string): string {
    const lower = `${col} ${b.lowerExclusive ? ">" : ">="} ?`;
    return b.upper === undefined ? lower : `${lower} AND ${col} < ?`;
  }

  private params(b: KeyBounds, revision: number | undefined): (string | number)[] {
    const p: (string | number)[] = [b.lower];
    if (b.upper !== undefined) p.push(b.upper);
    if (revision !== undefined) p.push(revision);
    return p;
  }

  private stmt(sql: string): SqlStatement {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }
}
