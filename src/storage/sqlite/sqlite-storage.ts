// SQLite Storage (the default backend). See schema.ts for the layout.
//
// Writes: each call is queued; all writes queued before the next setImmediate run in ONE
// transaction (group commit), each with its own check in call order, and every promise settles
// only after COMMIT returned (synchronous = FULL: the WAL is on disk). Both drivers (driver.ts) are
// synchronous, so a commit and the publishing of its events to watchers happen in one step that
// no read or watch registration can interleave with; that is what makes watch gap-free.
import {
  StorageError,
  type KeyValue,
  type PutOptions,
  type RangeOptions,
  type RangeResult,
  type Storage,
  type WatchEvent,
  type WatchOptions,
  type Watcher,
} from "../interface.js";
import { statSync } from "node:fs";
import { compareKeys, prefixEnd } from "../common/keys.js";
import {
  DEFAULT_HISTORY_WINDOW_MS,
  RevisionClock,
  checkWatchRevision,
  compactionInterval,
  resolveReadRevision,
} from "../common/revisions.js";
import { WatchHub } from "../common/watch-hub.js";
import type { SqlDatabase, SqliteDriverName } from "./driver.js";
import { sqliteDriver } from "./drivers.js";
import { initialise } from "./schema.js";
import { Statements, rowToEvent, rowToKv, type KeyBounds } from "./statements.js";
import { applyWrite, ExpiringKeys, type WriteOp, type WriteOutcome } from "./writes.js";
import { ExpirySweeper } from "../common/expiry.js";
import { checkPutSize, checkTransactionSize } from "../common/request-size.js";

// Loaded by the first SQLite store opened: a memory-only server never needs the native module.

/** Thrown inside a transaction to roll it back: the failed write's error. */
class RolledBack extends Error {
  constructor(readonly storageError: StorageError) {
    super(storageError.message);
  }
}

export interface SqliteStorageOptions {
  /** Database file; created if missing. */
  path: string;
  /** History older than this is compacted periodically. Default 5 minutes. */
  historyWindowMs?: number;
  /** The driver to use; default the preferred one this Node can run (drivers.ts). */
  driver?: SqliteDriverName;
}

export interface SqliteStorageStats {
  /** Write transactions committed. */
  commits: number;
  /** Write calls processed by those transactions (successful or failed by their precondition). */
  writes: number;
}

interface PendingWrite {
  op: WriteOp;
  resolve: (kv: KeyValue) => void;
  reject: (err: Error) => void;
}

export class SqliteStorage implements Storage {
  private revision: number;
  private compacted: number;
  private closed = false;
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  private commits = 0;
  private writes = 0;
  private readonly st: Statements;
  private readonly hub = new WatchHub();
  private readonly clock = new RevisionClock();
  private readonly timer: NodeJS.Timeout;
  private readonly windowMs: number;
  private readonly expiring: ExpiringKeys;
  /** Deletes the keys whose TTL has passed. */
  readonly expiry: ExpirySweeper;

  /** Open (or create) the database synchronously; the store is ready when this returns. */
  static open(opts: SqliteStorageOptions): SqliteStorage {
    return new SqliteStorage(sqliteDriver(opts.driver).open(opts.path), opts.historyWindowMs ?? DEFAULT_HISTORY_WINDOW_MS, opts.path);
  }

  private constructor(
    private readonly db: SqlDatabase,
    windowMs: number,
    /** The database file. */
    readonly path: string,
  ) {
    const state = initialise(db);
    this.revision = state.revision;
    this.compacted = state.compacted;
    this.st = new Statements(db);
    this.windowMs = windowMs;
    // Times of revisions before this process are unknown: count them as current from now.
    this.clock.record(this.revision);
    this.timer = setInterval(() => this.compactWindow(), compactionInterval(windowMs));
    this.timer.unref(); // compaction must never keep a process alive
    this.expiring = new ExpiringKeys(state.expiring);
    this.expiry = new ExpirySweeper({
      due: (now, limit) => (this.closed ? [] : this.st.dueKeys.all(now, limit).map((r) => ({ key: r.key, modRevision: r.id }))),
      delete: (key, rev) => this.delete(key, rev),
    });
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    return this.revision;
  }

  currentRevisionNow(): number {
    this.checkOpen();
    return this.revision;
  }

  /** The driver this store runs on. */
  get driver(): SqliteDriverName {
    return this.db.driver;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  stats(): SqliteStorageStats {
    return { commits: this.commits, writes: this.writes };
  }

  /** Bytes the database takes on disk: its file and its write-ahead log (0 for an in-memory one). */
  sizeOnDisk(): number {
    let bytes = 0;
    for (const file of [this.path, `${this.path}-wal`]) {
      try {
        bytes += statSync(file).size;
      } catch {
        // not there (an in-memory database, or no log yet)
      }
    }
    return bytes;
  }

  async get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    this.checkOpen();
    if (!opts?.revision) {
      const row = this.st.current.get(key);
      return row ? rowToKv(row) : undefined;
    }
    const rev = resolveReadRevision(opts.revision, this.revision, this.compacted, key);
    const row = this.st.atRevision.get(key, rev);
    return row && !row.deleted ? rowToKv(row) : undefined;
  }

  async range(prefix: string, opts: RangeOptions = {}): Promise<RangeResult> {
    this.checkOpen();
    const rev = resolveReadRevision(opts.revision, this.revision, this.compacted, prefix);
    const at = rev === this.revision ? undefined : rev; // current state comes from the index table
    const bounds = keyBounds(prefix, opts.startAfter);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    const rows = this.st.rangeRows(bounds, at, limit ? limit + 1 : -1);
    const more = limit > 0 && rows.length > limit;
    if (more) rows.length = limit;
    const items = rows.map(rowToKv);
    let remaining = 0;
    if (more && opts.countRemaining !== false) {
      const last = items[items.length - 1]!.key;
      remaining = this.st.countRows({ ...bounds, lower: last, lowerExclusive: true }, at);
    }
    return { items, revision: rev, more, remaining };
  }

  async count(prefix: string): Promise<number> {
    this.checkOpen();
    return this.st.countRows(keyBounds(prefix), undefined);
  }

  create(key: string, value: string, opts?: PutOptions): Promise<KeyValue> {
    const refused = sizeRefusal(key, value);
    if (refused) return refused;
    return this.enqueue({ kind: "create", key, value, ...(opts?.ttlSeconds ? { ttlSeconds: opts.ttlSeconds } : {}) });
  }

  update(key: string, value: string, expectedModRevision: number, opts?: PutOptions): Promise<KeyValue> {
    const refused = sizeRefusal(key, value);
    if (refused) return refused;
    return this.enqueue({ kind: "update", key, value, expectedModRevision, ...(opts?.ttlSeconds ? { ttlSeconds: opts.ttlSeconds } : {}) });
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.enqueue({ kind: "delete", key, expectedModRevision: expectedModRevision ?? 0 });
  }

  /**
   * Its own SQLite transaction, after the writes already queued (call order is commit order): a
   * failed check throws inside it, which rolls every write of it back.
   */
  async transaction(ops: readonly WriteOp[]): Promise<KeyValue[]> {
    this.checkOpen();
    if (ops.length > 0) checkTransactionSize(ops);
    this.flush();
    let outcomes: { kv: KeyValue; event: WatchEvent }[] = [];
    try {
      this.db.transaction(() => {
        outcomes = [];
        this.expiring.rollback();
        let rev = this.revision;
        for (const op of ops) {
          const out = applyWrite(this.st, op, rev + 1, this.expiring);
          if (!out.ok) throw new RolledBack(out.error);
          rev++;
          outcomes.push(out);
        }
        if (rev !== this.revision) this.st.setMeta.run("revision", rev);
      });
    } catch (err) {
      this.expiring.rollback();
      throw err instanceof RolledBack ? err.storageError : err;
    }
    this.expiring.commit();
    if (outcomes.length === 0) return [];
    this.commits++;
    this.writes += ops.length;
    this.revision = outcomes[outcomes.length - 1]!.event.revision;
    this.clock.record(this.revision);
    this.hub.publish(outcomes.map((o) => o.event));
    return outcomes.map((o) => o.kv);
  }

  /**
   * Replays committed events after opts.afterRevision from the log, then continues live.
   * Throws StorageError Compacted (or Closed) synchronously; onError is only for later failures
   * (a throwing onEvent, or Closed when the store closes).
   */
  watch(
    prefix: string,
    opts: WatchOptions,
    onEvent: (ev: WatchEvent) => void,
    onError?: (err: Error) => void,
  ): Watcher {
    this.checkOpen();
    checkWatchRevision(opts.afterRevision, this.compacted, prefix);
    // Replay read and registration happen in one synchronous step: no commit can slip between.
    const replay = this.st.replayRows(keyBounds(prefix), opts.afterRevision).map(rowToEvent);
    return this.hub.add(prefix, opts.afterRevision, replay, onEvent, onError);
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    if (revision > this.revision) {
      throw new StorageError("FutureRevision", "", `cannot compact to future revision ${revision}`);
    }
    this.compactTo(revision);
  }

  /** Commits queued writes, stops the compactor, ends watchers with Closed, closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.flush();
    clearInterval(this.timer);
    this.expiry.stop();
    this.hub.closeAll();
    this.db.close();
  }

  private enqueue(op: WriteOp): Promise<KeyValue> {
    if (this.closed) return Promise.reject(new StorageError("Closed", op.key, "storage closed"));
    return new Promise<KeyValue>((resolve, reject) => {
      this.pending.push({ op, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // setImmediate (not a microtask) so writes issued from promise chains of the same burst
        // still join this batch.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    let outcomes: WriteOutcome[] = [];
    let rev = this.revision;
    try {
      this.db.transaction(() => {
        outcomes = [];
        this.expiring.rollback();
        rev = this.revision;
        for (const w of batch) {
          const out = applyWrite(this.st, w.op, rev + 1, this.expiring);
          if (out.ok) rev++;
          outcomes.push(out);
        }
        if (rev !== this.revision) this.st.setMeta.run("revision", rev);
      });
    } catch (err) {
      // Nothing of the batch was committed: every write in it fails.
      this.expiring.rollback();
      const e = err instanceof Error ? err : new Error(String(err));
      for (const w of batch) w.reject(e);
      return;
    }
    this.expiring.commit();
    this.commits++;
    this.writes += batch.length;
    this.revision = rev;
    this.clock.record(rev);
    const events: WatchEvent[] = [];
    for (const out of outcomes) if (out.ok) events.push(out.event);
    this.hub.publish(events);
    batch.forEach((w, i) => {
      const out = outcomes[i]!;
      if (out.ok) w.resolve(out.kv);
      else w.reject(out.error);
    });
  }

  private compactWindow(): void {
    if (this.closed) return;
    const rev = this.clock.revisionAt(Date.now() - this.windowMs);
    if (rev !== undefined) this.compactTo(rev);
  }

  private compactTo(revision: number): void {
    if (revision <= this.compacted) return;
    const from = this.compacted;
    this.db.transaction(() => {
      this.st.compactSuperseded.run(from, revision);
      this.st.compactTombstones.run(from, revision);
      this.st.setMeta.run("compacted", revision);
    });
    this.compacted = revision;
  }

  private checkOpen(): void {
    if (this.closed) throw new StorageError("Closed", "", "storage closed");
  }
}

/** Index bounds for keys under `prefix`, after `startAfter` when that is past the prefix start. */
function keyBounds(prefix: string, startAfter?: string): KeyBounds {
  const upper = prefixEnd(prefix);
  if (startAfter !== undefined && compareKeys(startAfter, prefix) >= 0) {
    return { lower: startAfter, lowerExclusive: true, upper };
  }
  return { lower: prefix, lowerExclusive: false, upper };
}

/** A put over etcd's request limit, refused before it joins the queue (undefined: it fits). */
function sizeRefusal(key: string, value: string): Promise<never> | undefined {
  try {
    checkPutSize(key, value);
    return undefined;
  } catch (e) {
    return Promise.reject(e);
  }
}
