// The watch cache of one key prefix (one group-resource, all versions and namespaces): the
// current state in a sorted store, a ring of recent events, and the watchers it feeds — all
// from ONE storage watch. It tracks `revision`, the revision it has caught up to.
//
// Start-up reads the state at the backend's oldest readable revision — but no older than
// `historyFrom`, the revision the server found when it opened the store — and watches from there,
// so a lazily created cache can resume watches from versions older than its own creation. The
// history before the server's start is not replayed: upstream's watch cache starts at the revision
// it lists when kube-apiserver starts, and replaying (decoding) every version a restarted store
// still holds would make a restart's cost grow with the store's recent history.
//
// The initial state is read and decoded in pages, yielding to the event loop between them: a type
// with tens of thousands of objects must not hold up requests (or the server's own listen) while
// its cache fills. Every page is read at the same revision; writes made meanwhile arrive through
// the storage watch, registered from that revision.
//
// Freshness: both backends publish a commit's events synchronously with the commit (delivery is
// queued as microtasks), so once storage reports revision C and a macrotask boundary has passed,
// every event <= C has reached us. `progress()` relies on that in place of etcd's progress
// notifications; a backend whose watch events lag its writes (etcd3) offers Watcher.progress, a
// progress notification request, and the cache uses that instead.
import { CorruptValueError, StorageError, type KeyValue, type RangeResult, type StorageReader, type WatchEvent, type Watcher } from "../interface.js";
import { compareKeys, prefixEnd } from "../common/keys.js";
import { CacheWatcher, dispatched, type WatchSink, type WatcherStart } from "./cache-watcher.js";
import { EventRing } from "./event-ring.js";
import { BudgetedMemo } from "./memo-budget.js";
import { SortedStore, lowerBound } from "./sorted-store.js";
import { CacheError, type CacheEvent, type CacheEventType, type Decoded, type Decoder, type Entry, type Predicate, type WatchCacheObserver } from "./types.js";
import { WatcherIndex } from "./watcher-index.js";

export interface WatchCacheOptions {
  /** History kept for resuming watches (upstream: 5 minutes of events). */
  windowMs: number;
  /** Hard bound on events kept, whatever their age (upstream's ring tops out at 100Ki). */
  maxEvents: number;
  /** Live events a watcher may have queued while its client does not drain (upstream's channel bound). */
  maxQueuedPerWatcher: number;
  /** How often idle watchers that asked for them get a BOOKMARK (upstream: about a minute). */
  bookmarkIntervalMs: number;
  /** How long a read waits for the cache to reach a revision before "Too large resource version". */
  freshnessTimeoutMs: number;
  /** How long a snapshot for paging (continue tokens) is kept (upstream ListFromCacheSnapshot: 75 s). */
  snapshotTtlMs: number;
  /**
   * The oldest revision a prefix's cache replays history from: the revision its store had when
   * the server opened it (each etcd cluster of --etcd-servers-overrides has its own).
   */
  historyFrom: (prefix: string) => number;
  /** Who hears what a prefix's cache does (the server's metrics); none by default. */
  observe?: (prefix: string) => WatchCacheObserver | undefined;
}

export const defaultWatchCacheOptions: WatchCacheOptions = {
  windowMs: 5 * 60_000,
  maxEvents: 100 * 1024,
  maxQueuedPerWatcher: 1000,
  bookmarkIntervalMs: 60_000,
  freshnessTimeoutMs: 3000,
  snapshotTtlMs: 75_000,
  historyFrom: () => 0,
};

/** Objects read per storage call while a cache fills. */
const fillPageSize = 500;
/** How long a filling cache decodes before it lets the event loop run (requests, timers). */
const fillSliceMs = 4;

export interface WatchCacheConfig<O> {
  /** Where the cache loads from and which it follows: a backend (or anything offering its read interface). */
  storage: StorageReader;
  /** The type's key prefix, ending in "/". */
  prefix: string;
  /** Keys are <prefix><namespace>/<name> rather than <prefix><name>. */
  namespaced: boolean;
  decode: Decoder<O>;
}

export interface CacheList<O> {
  items: Entry<O>[];
  revision: number;
  /** Entries remain under the prefix after the last one returned. */
  more: boolean;
  /** Entries (matching or not) under the prefix after the page, as upstream counts them. */
  remaining: number;
  /** Key of the last entry looked at (continue position). */
  lastKey: string;
}

export type WatchStart =
  | { from: "state"; initialEventsEnd: boolean }
  | { from: "revision"; revision: number };

interface Snapshot<O> {
  entries: readonly Entry<O>[];
  expires: number;
}

const maxSnapshots = 64;
/** Distinct selector-less watch scopes whose predicate is shared (see sharedPredicate). */
const maxSharedPredicates = 4096;

export class WatchCache<O> {
  revision = 0;
  private readonly store = new SortedStore<O>();
  private ring!: EventRing<O>;
  private readonly watchers = new WatcherIndex<O>();
  private readonly plainPredicates = new Map<string, Predicate>();
  private readonly snapshots = new Map<number, Snapshot<O>>();
  private waiters: { rev: number; resolve: () => void }[] = [];
  private size = 0;
  private storageWatcher: Watcher | undefined;
  /** The newest revision an event was applied at (revision may be ahead of it through progress). */
  private lastEventRevision = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private loaded = false;
  private feedError: Error | undefined;
  /** Resolves once the initial state is loaded. */
  readonly ready: Promise<void>;
  private readonly observer: WatchCacheObserver | undefined;

  constructor(
    private readonly cfg: WatchCacheConfig<O>,
    readonly opts: WatchCacheOptions = defaultWatchCacheOptions,
  ) {
    this.observer = opts.observe?.(cfg.prefix);
    this.ready = this.init();
    this.ready.catch(() => undefined);
  }

  get watcherCount(): number {
    return this.watchers.size;
  }

  get objectCount(): number {
    return this.store.size;
  }

  /**
   * The summed lengths of the cached objects' stored values, kept as events arrive (upstream's
   * statsCache sums the last seen sizes of storage's values; its metric scales their average).
   */
  get storedSize(): number {
    return this.size;
  }

  /** Oldest revision a watch can start after. */
  get horizon(): number {
    return this.ring.horizon;
  }

  /**
   * The history ring exists: watch() and horizon may be used, though `ready` may still be
   * pending (a cache over a never-compacted store has it at once; otherwise after the first read).
   */
  get hasHistory(): boolean {
    return this.ring !== undefined;
  }

  /** Why the cache stopped when its storage feed broke (undefined when stopped by stop()). */
  get failure(): Error | undefined {
    return this.feedError;
  }

  private async init(): Promise<void> {
    // History holding values no longer readable (a key removed after a rotation) is not offered:
    // the cache starts again from the current state, and watches from before it get "too old".
    // The current state itself unreadable fails the cache (upstream: a corrupt object).
    if (!(await this.load(false))) {
      if (this.stopped) return;
      await this.load(true);
    }
    if (this.stopped) return;
    this.loaded = true;
    this.observer?.capacity(this.opts.maxEvents);
    this.observer?.resourceVersion(this.revision);
    this.observer?.initialized();
  }

  /** Loads and follows the prefix; false when the history it replayed could not be read. */
  private async load(fromCurrent: boolean): Promise<boolean> {
    const { storage, prefix } = this.cfg;
    for (let attempt = 0; ; attempt++) {
      const base = fromCurrent ? await storage.currentRevision(prefix) : Math.max(storage.compactedRevision(prefix), this.opts.historyFrom(prefix));
      try {
        if (base > 0 && !(await this.fill(base))) return true;
        if (this.stopped) return true;
        this.ring = new EventRing<O>(this.opts.windowMs, this.opts.maxEvents, base);
        this.revision = base;
        this.lastEventRevision = base;
        // Registered synchronously after the read: the replay of (base, now] arrives as events.
        this.storageWatcher = storage.watch(prefix, { afterRevision: base }, (ev) => this.apply(ev), (err) => this.fail(err));
        break;
      } catch (e) {
        // Compaction moved past `base` between the two steps: start over from the new base.
        if (e instanceof StorageError && e.code === "Compacted" && attempt < 5) {
          this.clear();
          continue;
        }
        if (isCorrupt(e) && !fromCurrent) return false;
        throw e;
      }
    }
    this.timer = setInterval(() => void this.tick(), Math.max(10, Math.min(this.opts.bookmarkIntervalMs, this.opts.windowMs / 4)));
    this.timer.unref();
    // Catch up with the replay before anyone reads.
    await this.progress();
    if (!fromCurrent && isCorrupt(this.feedError)) {
      // Nobody has seen this cache yet (it is not ready): forget the attempt and start afresh.
      clearInterval(this.timer);
      this.clear();
      this.stopped = false;
      this.feedError = undefined;
      return false;
    }
    if (isCorrupt(this.feedError)) throw this.feedError;
    return true;
  }

  /**
   * Reads and decodes the state at `base` page by page, yielding to the event loop between pages
   * and within a page's decoding every few milliseconds; false once stopped. The pages are one
   * consistent read: each is taken at `base`.
   */
  private async fill(base: number): Promise<boolean> {
    const { storage, prefix } = this.cfg;
    let startAfter: string | undefined;
    let sliceStart = performance.now();
    const yieldNow = async () => {
      await new Promise<void>((r) => setImmediate(r));
      sliceStart = performance.now();
      return !this.stopped;
    };
    for (;;) {
      let page: RangeResult;
      try {
        page = await storage.range(prefix, { revision: base, limit: fillPageSize, startAfter, countRemaining: false });
      } catch (e) {
        // A page names the unreadable values it met; whoever is told should hear of all of them.
        if (e instanceof CorruptValueError) await storage.range(prefix, { revision: base });
        throw e;
      }
      if (this.stopped) return false;
      for (const kv of page.items) {
        this.put(this.entry(kv, kv.modRevision));
        if (performance.now() - sliceStart > fillSliceMs && !(await yieldNow())) return false;
      }
      if (!page.more) return true;
      startAfter = page.items[page.items.length - 1]!.key;
      if (!(await yieldNow())) return false;
    }
  }

  /**
   * A stored value as the cache holds it. One that does not decode is counted: it fails the cache,
   * which loads again at its next use and meets it again — as upstream's reflector relists after
   * such a watch event and its storage counts the value in the list.
   */
  private entry(kv: KeyValue, modRevision: number, prev?: Entry<O>): Entry<O> {
    let decoded: Decoded<O>;
    try {
      decoded = this.cfg.decode(kv, prev?.object);
    } catch (e) {
      this.observer?.decodeFailed?.();
      throw e;
    }
    // The key string is the replaced entry's when there is one: each version of a key holds it once.
    return new CacheEntry(prev?.key ?? kv.key, modRevision, decoded, kv.value.length);
  }

  /** Stores an entry, keeping the size total; the entry it replaced. */
  private put(e: Entry<O>): Entry<O> | undefined {
    const prev = this.store.put(e);
    this.size += e.size - (prev?.size ?? 0);
    return prev;
  }

  private remove(key: string): Entry<O> | undefined {
    const prev = this.store.delete(key);
    if (prev) this.size -= prev.size;
    return prev;
  }

  private clear(): void {
    for (const kv of this.store.snapshot()) this.store.delete(kv.key);
    this.size = 0;
  }

  private apply(ev: WatchEvent): void {
    if (this.stopped) return;
    // Several events may share a revision (the writes of one etcd transaction): later ones of a
    // revision already applied from events are not behind.
    if (ev.revision < this.revision || (ev.revision === this.revision && ev.revision !== this.lastEventRevision)) {
      // A progress notification moved us past an event that had not arrived yet: what the cache
      // served since may miss it. Start over rather than drop it.
      if (ev.revision > this.lastEventRevision) this.fail(new StorageError("Unavailable", ev.kv.key, `watch cache: event at revision ${ev.revision} arrived after progress to ${this.revision}`));
      return;
    }
    this.lastEventRevision = ev.revision;
    let cev: CacheEvent<O>;
    const now = Date.now();
    if (ev.type === "put") {
      const cur = this.entry(ev.kv, ev.revision, this.store.get(ev.kv.key));
      const prev = this.put(cur);
      cev = cacheEvent(prev ? "MODIFIED" : "ADDED", ev.revision, cur.key, cur, prev, now);
    } else {
      const prev = this.remove(ev.kv.key);
      // The deleted object is the last state; reuse its decoded form, stamped with the delete revision.
      const cur: Entry<O> = prev ? (prev as CacheEntry<O>).restamped(ev.revision) : this.entry(ev.kv, ev.revision);
      cev = cacheEvent("DELETED", ev.revision, ev.kv.key, cur, prev, now);
    }
    this.revision = ev.revision;
    this.ring.push(cev);
    const [ns, name] = this.scopeOf(cev.key);
    this.watchers.forCandidates(ns, name, (w) => w.push(cev));
    dispatched(cev);
    if (this.observer) {
      this.observer.event();
      this.observer.resourceVersion(ev.revision);
    }
    this.wake();
  }

  private scopeOf(key: string): [string, string] {
    const rel = key.slice(this.cfg.prefix.length);
    if (!this.cfg.namespaced) return ["", rel];
    const slash = rel.indexOf("/");
    return slash < 0 ? ["", rel] : [rel.slice(0, slash), rel.slice(slash + 1)];
  }

  private fail(err: Error): void {
    // The feed broke (store closed, or compacted under a stalled feed): nothing served from here
    // can be trusted any more. Watchers end and reconnect to a fresh cache.
    this.feedError = err;
    this.stop();
  }

  /** Advance to the backend's current revision (see the header: events <= it have arrived). */
  async progress(): Promise<number> {
    if (this.storageWatcher?.progress) {
      // etcd: a progress notification on the feed says every event up to its revision arrived.
      let rev: number;
      try {
        rev = await this.storageWatcher.progress();
      } catch (e) {
        // The feed ended under the request (compacted, its member gone): the cache stopped with
        // it, and readers go on from a fresh one (CacheError Stopped) instead of failing.
        this.checkRunning();
        throw e;
      }
      if (!this.stopped && rev > this.revision) {
        this.revision = rev;
        this.observer?.resourceVersion(rev);
        this.wake();
      }
      return rev;
    }
    const current = await this.cfg.storage.currentRevision(this.cfg.prefix);
    await new Promise<void>((r) => setImmediate(r));
    if (!this.stopped && current > this.revision) {
      this.revision = current;
      this.observer?.resourceVersion(current);
      this.wake();
    }
    return current;
  }

  /** Wait until the cache has reached `rev`, else CacheError TooLarge after the freshness timeout; stops when `signal` aborts. */
  async waitUntilFresh(rev: number, timeoutMs = this.opts.freshnessTimeoutMs, signal?: AbortSignal): Promise<void> {
    await this.ready;
    const started = performance.now();
    try {
      await this.waitFor(rev, timeoutMs, signal);
    } finally {
      this.observer?.readWait((performance.now() - started) / 1000);
    }
  }

  private async waitFor(rev: number, timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.revision < rev) {
      signal?.throwIfAborted();
      this.checkRunning();
      const current = await this.cfg.storage.currentRevision(this.cfg.prefix);
      if (current >= rev) {
        await this.progress();
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new CacheError("TooLarge", rev, this.revision, `Too large resource version: ${rev}, current: ${this.revision}`);
      await new Promise<void>((resolve) => {
        const w = { rev, resolve };
        this.waiters.push(w);
        setTimeout(resolve, Math.min(50, left)).unref();
      });
    }
  }

  /** Tells the observer how a consistent list asked of this cache ended (apiserver_watch_cache_consistent_read_total). */
  noteConsistentRead(success: boolean, fallback: boolean): void {
    this.observer?.consistentRead(success, fallback);
  }

  /** A consistent read: the backend's current revision, once the cache has it (upstream ConsistentListFromCache). */
  async syncToStorage(): Promise<number> {
    await this.ready;
    this.checkRunning();
    const current = await this.progress();
    await this.waitUntilFresh(current);
    return this.revision;
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) (w.rev <= this.revision ? w.resolve() : still.push(w));
    this.waiters = still;
  }

  /** Entries under pred.prefix after `after` (a full key), filtered, up to limit (0 = all). */
  list(pred: Predicate, opts: { after?: string; limit?: number; snapshot?: readonly Entry<O>[]; revision?: number } = {}): CacheList<O> {
    this.checkRunning();
    const arr = opts.snapshot ?? this.store.snapshot();
    const first = lowerBound(arr, pred.prefix);
    const start = opts.after !== undefined ? Math.max(first, upperBoundKey(arr, opts.after)) : first;
    const endKey = prefixEnd(pred.prefix);
    const end = endKey === undefined ? arr.length : lowerBound(arr, endKey);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const items: Entry<O>[] = [];
    let i = start;
    let lastKey = "";
    for (; i < end && items.length < limit; i++) {
      const e = arr[i]!;
      if (!pred.matches || pred.matches(e)) {
        items.push(e);
        lastKey = e.key;
      }
    }
    const more = items.length >= limit && i < end;
    this.observer?.listed(i - start, items.length);
    return { items, revision: opts.revision ?? this.revision, more, remaining: more ? end - start - items.length : 0, lastKey };
  }

  /**
   * A key's entry as storage holds it now (null: no such key), when the cache proves it holds
   * every event up to storage's current revision. A backend that publishes each commit's events
   * with the commit (memory, SQLite) tells that revision locally; an etcd-fed cache learns it in a
   * progress round (src/storage/etcd3/etcd-watch.ts), which every read waiting for the next round
   * shares: one read of etcd's revision serves a burst of GETs, where each would otherwise read
   * its key. Undefined when the cache cannot prove it (not loaded, its feed ended, no progress
   * within the freshness timeout): the caller reads storage. Without a promise when storage tells
   * its revision at once (currentRevisionNow: memory, SQLite), so that a GET costs no microtask turn.
   */
  currentEntry(key: string): Entry<O> | null | undefined | Promise<Entry<O> | null | undefined> {
    if (!this.loaded || this.stopped) return undefined;
    if (!this.storageWatcher?.progress) {
      const now = this.cfg.storage.currentRevisionNow?.(this.cfg.prefix);
      if (now !== undefined) return this.entryAtLeast(key, now);
    }
    return this.currentEntryLater(key);
  }

  private async currentEntryLater(key: string): Promise<Entry<O> | null | undefined> {
    const current = this.storageWatcher?.progress ? await this.progressWithin(this.opts.freshnessTimeoutMs) : await this.cfg.storage.currentRevision(this.cfg.prefix);
    return current === undefined ? undefined : this.entryAtLeast(key, current);
  }

  /** The key's entry when the cache has reached `revision` (null: no such key), else undefined. */
  private entryAtLeast(key: string, revision: number): Entry<O> | null | undefined {
    if (this.stopped || this.revision < revision) return undefined;
    return this.store.get(key) ?? null;
  }

  /** progress(), or undefined when it fails or takes longer than `ms` (a stalled feed). */
  private async progressWithin(ms: number): Promise<number | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
      timer.unref();
    });
    try {
      return await Promise.race([this.progress(), late]);
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The current entry of a key (the state at `revision`). */
  lookup(key: string): Entry<O> | undefined {
    this.checkRunning();
    return this.store.get(key);
  }

  /** Number of entries under a key prefix at `revision`. */
  count(prefix: string): number {
    this.checkRunning();
    return this.store.countPrefix(prefix);
  }

  /**
   * Whether the state at `rev` can be rebuilt from what the cache holds: the cache has reached
   * it and the ring still has every event after it.
   */
  holdsRevision(rev: number): boolean {
    return rev <= this.revision && rev >= this.ring.horizon;
  }

  /** A key's entry as it was at `rev` (see holdsRevision): the state before the first later event of that key, else the current one. */
  entryAt(key: string, rev: number): Entry<O> | undefined {
    this.checkRunning();
    for (const ev of this.ring.since(rev)) if (ev.key === key) return ev.prev;
    return this.store.get(key);
  }

  /** The entries under a key prefix as they were at `rev` (see holdsRevision), sorted by key. */
  entriesAt(prefix: string, rev: number): readonly Entry<O>[] {
    this.checkRunning();
    const current = this.store.copyPrefix(prefix);
    // Undo the later events: each key touched after `rev` takes the state its first later event
    // replaced (absent when that event created it).
    const before = new Map<string, Entry<O> | undefined>();
    for (const ev of this.ring.since(rev)) {
      if (ev.key.startsWith(prefix) && !before.has(ev.key)) before.set(ev.key, ev.prev);
    }
    if (before.size === 0) return current;
    const out = current.filter((e) => !before.has(e.key));
    for (const e of before.values()) if (e) out.push(e);
    return out.sort((a, b) => compareKeys(a.key, b.key));
  }

  /** Keep the current state for continue tokens at the current revision. */
  snapshotForPaging(): number {
    const now = Date.now();
    for (const [rev, s] of this.snapshots) if (s.expires < now) this.snapshots.delete(rev);
    if (!this.snapshots.has(this.revision)) {
      if (this.snapshots.size >= maxSnapshots) this.snapshots.delete(this.snapshots.keys().next().value!);
      this.snapshots.set(this.revision, { entries: this.store.snapshot(), expires: now + this.opts.snapshotTtlMs });
    }
    return this.revision;
  }

  /** The state at exactly `rev` when the cache still holds it, else undefined (read storage). */
  snapshotAt(rev: number): readonly Entry<O>[] | undefined {
    // Like upstream, compaction of the backend invalidates snapshots older than it: a continue
    // token must not outlive the history the backend keeps.
    if (rev < this.cfg.storage.compactedRevision(this.cfg.prefix)) return undefined;
    const s = this.snapshots.get(rev);
    if (s && s.expires >= Date.now()) return s.entries;
    // The current state is the state at rev when nothing under the prefix changed since.
    if (rev <= this.revision && rev >= this.ring.horizon && !this.ring.anyBetween(rev, this.revision)) return this.store.snapshot();
    return undefined;
  }

  /**
   * Register a watcher and start delivering to its sink at once (the sink must be ready).
   * Throws CacheError TooOld when `revision` is older than the history kept.
   */
  watch(pred: Predicate, sink: WatchSink<O>, start: WatchStart, allowBookmarks: boolean): CacheWatcher<O> {
    this.checkRunning();
    let ws: WatcherStart<O>;
    if (start.from === "state") {
      const arr = this.store.snapshot();
      const endKey = prefixEnd(pred.prefix);
      const initial = arr.slice(lowerBound(arr, pred.prefix), endKey === undefined ? arr.length : lowerBound(arr, endKey));
      ws = { initial, startRevision: this.revision, initialEventsEndAt: start.initialEventsEnd ? this.revision : undefined, observer: this.observer };
    } else {
      if (start.revision < this.ring.horizon) {
        throw new CacheError("TooOld", start.revision, this.ring.horizon, `too old resource version: ${start.revision} (${this.ring.horizon})`);
      }
      ws = { replay: this.ring.since(start.revision), startRevision: Math.max(this.revision, start.revision), observer: this.observer };
    }
    const w = new CacheWatcher<O>(this.sharedPredicate(pred), sink, allowBookmarks, this.opts.maxQueuedPerWatcher, ws);
    this.watchers.add(w);
    w.resume();
    return w;
  }

  /**
   * Watchers of the same scope without selectors get one predicate object: an event is matched
   * against it once for all of them (CacheWatcher.deliverEvent), and its prefix is read from one
   * place rather than one copy per watch (issue 26). Bounded: past the bound, new watches start a
   * fresh table (those already sharing keep their object).
   */
  private sharedPredicate(pred: Predicate): Predicate {
    if (pred.matches) return pred;
    const key = `${pred.prefix}\u0000${pred.namespace}\u0000${pred.name}`;
    const known = this.plainPredicates.get(key);
    if (known) return known;
    if (this.plainPredicates.size >= maxSharedPredicates) this.plainPredicates.clear();
    const own: Predicate = { prefix: pred.prefix, namespace: pred.namespace, name: pred.name };
    this.plainPredicates.set(key, own);
    return own;
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    this.ring.expire(Date.now());
    try {
      await this.progress();
    } catch {
      return; // storage closing: the feed's error handler stops us
    }
    const memo = new Map<string, unknown>();
    this.watchers.all((w) => w.bookmark(this.revision, memo));
  }

  /** Send a bookmark now to every idle watcher that allows them (tests, shutdown). */
  bookmarkNow(): void {
    const memo = new Map<string, unknown>();
    this.watchers.all((w) => w.bookmark(this.revision, memo));
  }

  private checkRunning(): void {
    if (this.stopped) throw new CacheError("Stopped", 0, 0, "watch cache stopped");
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.storageWatcher?.stop();
    this.snapshots.clear();
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
    this.watchers.all((w) => w.end("stopped"));
  }
}

/**
 * An entry whose byte memo is made on first use: most cached objects are never encoded (caches
 * that only in-process informers read, objects no list has reached), and an empty Map costs
 * about 200 bytes per object. The bytes it keeps count against the process's memo budget.
 */
class CacheEntry<O> implements Entry<O> {
  readonly object: O;
  readonly labels: Readonly<Record<string, string>> | undefined;
  readonly fieldsOf: Decoded<O>["fieldsOf"];
  private lazyFields: Readonly<Record<string, string>> | undefined;
  private lazyMemo: Map<string, unknown> | undefined;

  constructor(
    readonly key: string,
    readonly modRevision: number,
    d: Decoded<O>,
    readonly size: number,
  ) {
    this.object = d.object;
    this.labels = d.labels;
    this.fieldsOf = d.fieldsOf;
  }

  get fields(): Readonly<Record<string, string>> {
    return (this.lazyFields ??= this.fieldsOf(this.object));
  }

  get memo(): Map<string, unknown> {
    return (this.lazyMemo ??= new BudgetedMemo());
  }

  /** The same object as the entry of a later revision (a deletion's last state): its decoded parts and field attributes, not its encodings. */
  restamped(modRevision: number): CacheEntry<O> {
    const e = new CacheEntry(this.key, modRevision, this, this.size);
    e.lazyFields = this.lazyFields;
    return e;
  }
}

function upperBoundKey<O>(arr: readonly Entry<O>[], key: string): number {
  // first entry with key > `key`
  const i = lowerBound(arr, key);
  return i < arr.length && arr[i]!.key === key ? i + 1 : i;
}

function isCorrupt(e: unknown): boolean {
  return e instanceof StorageError && e.code === "Corrupt";
}

/** A history event with every field it will get already in place (one shape, no property store grown later). */
function cacheEvent<O>(type: CacheEventType, revision: number, key: string, cur: Entry<O>, prev: Entry<O> | undefined, time: number): CacheEvent<O> {
  return { type, revision, key, cur, prev, time, dispatch: undefined };
}
