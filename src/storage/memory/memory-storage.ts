// In-memory Storage: the reference backend for tests and single-process use. Writes apply
// synchronously at call time (so call order is commit order) and are "durable" at once.
//
// Model: per key, a history of versions ({rev, kv | undefined for a deletion}); a sorted array of
// every key that has history (for ranges at any revision); a global log of events (for watch
// replay). Compaction trims all three exactly like the sqlite backend trims its log. Keys written
// with a TTL expire through a sweep (common/expiry.ts), and a value written with one is dropped
// from the history as soon as it is replaced (see PutOptions).
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
  type WriteOp,
} from "../interface.js";
import { compareKeys } from "../common/keys.js";
import {
  DEFAULT_HISTORY_WINDOW_MS,
  RevisionClock,
  checkWatchRevision,
  compactionInterval,
  resolveReadRevision,
} from "../common/revisions.js";
import { WatchHub } from "../common/watch-hub.js";
import { ExpirySweeper, expiryOf, type DueKey } from "../common/expiry.js";
import { checkPutSize, checkTransactionSize } from "../common/request-size.js";

export interface MemoryStorageOptions {
  /** History older than this is compacted periodically. Default 5 minutes. */
  historyWindowMs?: number;
}

interface Version {
  rev: number;
  kv: KeyValue | undefined; // undefined: the key was deleted at rev
}

export class MemoryStorage implements Storage {
  private revision = 0;
  private compacted = 0;
  private closed = false;
  private readonly history = new Map<string, Version[]>();
  private readonly sortedKeys: string[] = [];
  private log: WatchEvent[] = [];
  private readonly hub = new WatchHub();
  private readonly clock = new RevisionClock();
  private readonly windowMs: number;
  private readonly timer: NodeJS.Timeout;
  /** Keys written with a TTL: when each expires (ms since the epoch). */
  private readonly expiries = new Map<string, number>();
  /** Deletes the keys whose TTL has passed. */
  readonly expiry: ExpirySweeper;

  constructor(opts: MemoryStorageOptions = {}) {
    this.windowMs = opts.historyWindowMs ?? DEFAULT_HISTORY_WINDOW_MS;
    this.clock.record(0);
    this.timer = setInterval(() => this.compactWindow(), compactionInterval(this.windowMs));
    this.timer.unref(); // compaction must never keep a process alive
    this.expiry = new ExpirySweeper({ due: (now, limit) => this.due(now, limit), delete: (key, rev) => this.delete(key, rev) });
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    return this.revision;
  }

  currentRevisionNow(): number {
    this.checkOpen();
    return this.revision;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  async get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    this.checkOpen();
    const rev = resolveReadRevision(opts?.revision, this.revision, this.compacted, key);
    return this.versionAt(key, rev);
  }

  async range(prefix: string, opts: RangeOptions = {}): Promise<RangeResult> {
    this.checkOpen();
    const rev = resolveReadRevision(opts.revision, this.revision, this.compacted, prefix);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const items: KeyValue[] = [];
    let remaining = 0;
    for (let i = this.firstIndex(prefix, opts.startAfter); i < this.sortedKeys.length; i++) {
      const key = this.sortedKeys[i]!;
      if (!key.startsWith(prefix)) break;
      const kv = this.versionAt(key, rev);
      if (!kv) continue;
      if (items.length < limit) items.push(kv);
      else remaining++;
    }
    return { items, revision: rev, more: remaining > 0, remaining };
  }

  async count(prefix: string): Promise<number> {
    return (await this.range(prefix)).items.length;
  }

  async create(key: string, value: string, opts?: PutOptions): Promise<KeyValue> {
    this.checkOpen();
    checkPutSize(key, value);
    if (this.current(key)) throw new StorageError("KeyExists", key);
    const rev = this.revision + 1;
    const kv: KeyValue = { key, value, createRevision: rev, modRevision: rev };
    this.commit(key, kv, { type: "put", kv, revision: rev }, opts?.ttlSeconds);
    return kv;
  }

  async update(key: string, value: string, expectedModRevision: number, opts?: PutOptions): Promise<KeyValue> {
    this.checkOpen();
    checkPutSize(key, value);
    const prev = this.checkPrecondition(key, expectedModRevision);
    const rev = this.revision + 1;
    const kv: KeyValue = { key, value, createRevision: prev.createRevision, modRevision: rev };
    this.commit(key, kv, { type: "put", kv, prevKv: prev, revision: rev }, opts?.ttlSeconds);
    return kv;
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    this.checkOpen();
    const prev = this.checkPrecondition(key, expectedModRevision ?? 0);
    const rev = this.revision + 1;
    const kv: KeyValue = { ...prev, modRevision: rev };
    this.commit(key, undefined, { type: "delete", kv, prevKv: prev, revision: rev });
    return kv;
  }

  /** Every check first, against the state the earlier writes of the batch leave; then every write, with no await between. */
  async transaction(ops: readonly WriteOp[]): Promise<KeyValue[]> {
    this.checkOpen();
    if (ops.length > 0) checkTransactionSize(ops);
    const after = new Map<string, KeyValue | undefined>();
    const writes: { key: string; kv: KeyValue | undefined; ev: WatchEvent; ttlSeconds?: number }[] = [];
    let rev = this.revision;
    for (const op of ops) {
      const prev = after.has(op.key) ? after.get(op.key) : this.current(op.key);
      if (op.kind === "create" && prev) throw new StorageError("KeyExists", op.key);
      if (op.kind !== "create") checkModRevision(op.key, prev, op.expectedModRevision);
      rev++;
      const kv: KeyValue = op.kind === "delete" ? { ...prev!, modRevision: rev } : { key: op.key, value: op.value, createRevision: prev?.createRevision ?? rev, modRevision: rev };
      const ev: WatchEvent = { type: op.kind === "delete" ? "delete" : "put", kv, revision: rev, ...(prev ? { prevKv: prev } : {}) };
      after.set(op.key, op.kind === "delete" ? undefined : kv);
      writes.push({ key: op.key, kv: op.kind === "delete" ? undefined : kv, ev, ...(op.kind !== "delete" ? { ttlSeconds: op.ttlSeconds } : {}) });
    }
    for (const w of writes) this.commit(w.key, w.kv, w.ev, w.ttlSeconds);
    return writes.map((w) => w.ev.kv);
  }

  /** Throws Compacted synchronously when afterRevision is older than the kept history. */
  watch(
    prefix: string,
    opts: WatchOptions,
    onEvent: (ev: WatchEvent) => void,
    onError?: (err: Error) => void,
  ): Watcher {
    this.checkOpen();
    checkWatchRevision(opts.afterRevision, this.compacted, prefix);
    const start = this.firstLogIndexAfter(opts.afterRevision);
    const replay = this.log.slice(start).filter((ev) => ev.kv.key.startsWith(prefix));
    return this.hub.add(prefix, opts.afterRevision, replay, onEvent, onError);
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    if (revision > this.revision) {
      throw new StorageError("FutureRevision", "", `cannot compact to future revision ${revision}`);
    }
    if (revision <= this.compacted) return;
    const cut = this.firstLogIndexAfter(revision - 1);
    const dropped = this.log.slice(0, cut);
    this.log = this.log.slice(cut);
    // Only keys written in the dropped range can have versions that just became unreachable.
    const touched = new Set(dropped.map((ev) => ev.kv.key));
    for (const key of touched) this.trimKey(key, revision);
    this.compacted = revision;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.expiry.stop();
    this.hub.closeAll();
  }

  /** Number of live watchers (for tests and metrics). */
  watcherCount(): number {
    return this.hub.size;
  }

  private compactWindow(): void {
    if (this.closed) return;
    const rev = this.clock.revisionAt(Date.now() - this.windowMs);
    if (rev !== undefined && rev > this.compacted) void this.compact(rev);
  }

  private commit(key: string, kv: KeyValue | undefined, ev: WatchEvent, ttlSeconds?: number): void {
    this.revision = ev.revision;
    let versions = this.history.get(key);
    if (!versions) {
      versions = [];
      this.history.set(key, versions);
      this.sortedKeys.splice(this.firstIndex(key), 0, key);
    }
    // A value written with a TTL is not kept once replaced: no history for short-lived keys.
    const forget = this.expiries.has(key) && ev.prevKv !== undefined;
    if (forget) this.forget(key, ev.prevKv!.modRevision);
    versions.push({ rev: ev.revision, kv });
    this.log.push(forget && ev.type === "put" ? { type: "put", kv: ev.kv, revision: ev.revision } : ev);
    const expires = kv ? expiryOf(ttlSeconds) : undefined;
    if (expires === undefined) this.expiries.delete(key);
    else this.expiries.set(key, expires);
    this.clock.record(ev.revision);
    this.hub.publish([ev]);
  }

  /** Drops the version of `key` written at `rev`, and its event, from the history. */
  private forget(key: string, rev: number): void {
    const versions = this.history.get(key);
    const v = versions?.findIndex((x) => x.rev === rev) ?? -1;
    if (v >= 0) versions!.splice(v, 1);
    const i = this.firstLogIndexAfter(rev - 1);
    if (this.log[i]?.revision === rev) this.log.splice(i, 1);
  }

  /** Keys whose TTL has passed by `now`, soonest first. */
  private due(now: number, limit: number): DueKey[] {
    const due: { key: string; at: number }[] = [];
    for (const [key, at] of this.expiries) if (at <= now) due.push({ key, at });
    due.sort((a, b) => a.at - b.at);
    return due.slice(0, limit).map(({ key }) => ({ key, modRevision: this.current(key)?.modRevision ?? 0 }));
  }

  /** Keep versions at or after `revision`, plus the one current just before it if it is live. */
  private trimKey(key: string, revision: number): void {
    const versions = this.history.get(key);
    if (!versions) return;
    let i = 0;
    while (i < versions.length && versions[i]!.rev < revision) i++;
    const before = i > 0 ? versions[i - 1]! : undefined;
    const kept = versions.slice(i);
    if (before?.kv) kept.unshift(before);
    if (kept.length > 0) {
      this.history.set(key, kept);
      return;
    }
    this.history.delete(key);
    this.sortedKeys.splice(this.firstIndex(key), 1);
  }

  private current(key: string): KeyValue | undefined {
    const versions = this.history.get(key);
    return versions?.[versions.length - 1]?.kv;
  }

  private versionAt(key: string, rev: number): KeyValue | undefined {
    const versions = this.history.get(key);
    if (!versions) return undefined;
    for (let i = versions.length - 1; i >= 0; i--) {
      if (versions[i]!.rev <= rev) return versions[i]!.kv;
    }
    return undefined;
  }

  private checkPrecondition(key: string, expectedModRevision: number): KeyValue {
    return checkModRevision(key, this.current(key), expectedModRevision);
  }

  /** Index of the first key >= prefix (and > startAfter when given). */
  private firstIndex(prefix: string, startAfter?: string): number {
    const keys = this.sortedKeys;
    let lo = 0;
    let hi = keys.length;
    const strict = startAfter !== undefined && compareKeys(startAfter, prefix) >= 0;
    const bound = strict ? startAfter! : prefix;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareKeys(keys[mid]!, bound);
      if (c < 0 || (strict && c === 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of the first log event with revision > rev (the log is in revision order). */
  private firstLogIndexAfter(rev: number): number {
    let lo = 0;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.log[mid]!.revision <= rev) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private checkOpen(): void {
    if (this.closed) throw new StorageError("Closed", "", "storage closed");
  }
}

/** An update's or delete's check: the key exists and, when asked, is at the expected revision. */
function checkModRevision(key: string, cur: KeyValue | undefined, expectedModRevision: number): KeyValue {
  if (!cur) throw new StorageError("KeyNotFound", key);
  if (expectedModRevision && cur.modRevision !== expectedModRevision) {
    throw new StorageError("Conflict", key, `modRevision is ${cur.modRevision}, expected ${expectedModRevision}`, cur);
  }
  return cur;
}
