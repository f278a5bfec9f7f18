// The watch cache behind the storage interface: a Storage whose reads and watches under one key
// prefix are answered by a watch cache, and whose writes go to the backend under it (as
// upstream's Cacher wraps etcd3's storage.Interface). Code that reads storage can be handed this
// or a backend alike, and any backend gets a cache by being wrapped.
//
// What is answered where:
// - reads at the current revision: the cache, once it has caught up with the backend's current
//   revision (one currentRevision() call, as upstream's consistent reads from cache), so a read
//   sees every write acknowledged before it, exactly as a read of the backend does;
// - reads at a past revision: the cache while its ring still holds every event after that
//   revision, else the backend (upstream delegates such lists to etcd);
// - watches: the cache's ring, then live events. The cache keeps its own bounded window, so a
//   watch from before it fails with Compacted naming the oldest revision the cache can replay,
//   even when the backend still holds that history (upstream: 410 "too old resource version");
// - keys and prefixes outside the cached prefix, current and compacted revision, writes and
//   compaction: the backend.
import { checkWatchRevision, compactedError, resolveReadRevision } from "../common/revisions.js";
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
import type { CacheWatcher, WatchSink } from "./cache-watcher.js";
import { CacheError, type Decoder, type Delivery, type Entry, type Predicate } from "./types.js";
import { WatchCache, defaultWatchCacheOptions, type WatchCacheOptions } from "./watch-cache.js";

export interface CachedStorageOptions {
  /** The key prefix the cache holds, usually one resource's ("" = every key). */
  prefix: string;
  cache?: Partial<WatchCacheOptions>;
}

const noFields: Readonly<Record<string, string>> = Object.freeze({});

/** The cache holds the stored key-values themselves: nothing to decode, no selector attributes. */
const keepKeyValue: Decoder<KeyValue> = (kv) => ({ object: kv, labels: undefined, fieldsOf: () => noFields });

const closedError = () => new StorageError("Closed", "", "storage closed");

export class CachedStorage implements Storage {
  private cache: WatchCache<KeyValue>;
  private readonly cacheOptions: WatchCacheOptions;
  private closed = false;

  constructor(
    private readonly backend: Storage,
    private readonly options: CachedStorageOptions,
  ) {
    this.cacheOptions = { ...defaultWatchCacheOptions, ...options.cache };
    this.cache = this.startCache();
  }

  private startCache(): WatchCache<KeyValue> {
    const cache = new WatchCache<KeyValue>(
      { storage: this.backend, prefix: this.options.prefix, namespaced: false, decode: keepKeyValue },
      this.cacheOptions,
    );
    // A cache that failed to load is stopped, so the next read starts a fresh one.
    cache.ready.catch(() => cache.stop());
    return cache;
  }

  /** The running cache; one whose feed broke (or that failed to load) is replaced by a fresh one. */
  private liveCache(): WatchCache<KeyValue> {
    this.checkOpen();
    if (this.cache.isStopped) this.cache = this.startCache();
    return this.cache;
  }

  private covers(keyOrPrefix: string): boolean {
    return keyOrPrefix.startsWith(this.options.prefix);
  }

  private checkOpen(): void {
    if (this.closed) throw closedError();
  }

  /** 0 for the current revision, else the requested one once the backend says it is readable. */
  private async readRevision(requested: number | undefined, key: string): Promise<number> {
    this.checkOpen();
    if (!requested) return 0;
    return resolveReadRevision(requested, await this.backend.currentRevision(key), this.backend.compactedRevision(key), key);
  }

  /** Run a read against the loaded cache; a cache that stops under the read is replaced and the read retried. */
  private async fromCache<T>(read: (cache: WatchCache<KeyValue>) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const cache = this.liveCache();
      try {
        await cache.ready;
        return await read(cache);
      } catch (e) {
        if (!(e instanceof CacheError && e.code === "Stopped")) throw e;
        if (this.closed) throw closedError();
        if (attempt >= 2) throw e;
      }
    }
  }

  async currentRevision(key?: string): Promise<number> {
    this.checkOpen();
    return this.backend.currentRevision(key);
  }

  currentRevisionNow(key?: string): number | undefined {
    this.checkOpen();
    return this.backend.currentRevisionNow?.(key);
  }

  compactedRevision(key?: string): number {
    return this.backend.compactedRevision(key);
  }

  async get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    if (!this.covers(key)) return this.backend.get(key, opts);
    const rev = await this.readRevision(opts?.revision, key);
    return this.fromCache(async (cache) => {
      if (rev === 0) {
        await cache.syncToStorage();
        return cache.lookup(key)?.object;
      }
      await cache.waitUntilFresh(rev);
      if (!cache.holdsRevision(rev)) return this.backend.get(key, { revision: rev });
      return cache.entryAt(key, rev)?.object;
    });
  }

  async range(prefix: string, opts: RangeOptions = {}): Promise<RangeResult> {
    if (!this.covers(prefix)) return this.backend.range(prefix, opts);
    const rev = await this.readRevision(opts.revision, prefix);
    return this.fromCache(async (cache) => {
      let entries: readonly Entry<KeyValue>[] | undefined;
      if (rev === 0) {
        await cache.syncToStorage();
      } else {
        await cache.waitUntilFresh(rev);
        if (!cache.holdsRevision(rev)) return this.backend.range(prefix, opts);
        entries = cache.entriesAt(prefix, rev);
      }
      const all: Predicate = { prefix, namespace: "", name: "" };
      const page = cache.list(all, { after: opts.startAfter, limit: opts.limit, snapshot: entries, revision: rev || undefined });
      return { items: page.items.map((e) => e.object), revision: page.revision, more: page.more, remaining: page.remaining };
    });
  }

  async count(prefix: string): Promise<number> {
    if (!this.covers(prefix)) return this.backend.count(prefix);
    return this.fromCache(async (cache) => {
      await cache.syncToStorage();
      return cache.count(prefix);
    });
  }

  watch(prefix: string, opts: WatchOptions, onEvent: (ev: WatchEvent) => void, onError?: (err: Error) => void): Watcher {
    if (!this.covers(prefix)) return this.backend.watch(prefix, opts, onEvent, onError);
    this.checkOpen();
    checkWatchRevision(opts.afterRevision, this.backend.compactedRevision(prefix), prefix);
    const cache = this.liveCache();
    const watch = new CacheFedWatch(prefix, onEvent, onError);
    if (cache.hasHistory) {
      watch.start(cache, opts.afterRevision);
    } else {
      // The cache is still reading its initial state: start once it has it. Refusals then
      // arrive through onError instead of being thrown.
      cache.ready.then(
        () => watch.startOrFail(cache, opts.afterRevision),
        (err: unknown) => watch.fail(err instanceof Error ? err : new Error(String(err))),
      );
    }
    return watch;
  }

  create(key: string, value: string, opts?: PutOptions): Promise<KeyValue> {
    return this.backend.create(key, value, opts);
  }

  update(key: string, value: string, expectedModRevision: number, opts?: PutOptions): Promise<KeyValue> {
    return this.backend.update(key, value, expectedModRevision, opts);
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.backend.delete(key, expectedModRevision);
  }

  transaction(ops: readonly WriteOp[]): Promise<KeyValue[]> {
    return this.backend.transaction(ops);
  }

  compact(revision: number): Promise<void> {
    return this.backend.compact(revision);
  }

  async close(): Promise<void> {
    this.closed = true;
    // The backend finishes its pending writes and ends the cache's feed after their events, so
    // the cache's watchers get those events and then the backend's Closed error. Its watch
    // deliveries are microtasks: one macrotask later they have all run, and stopping the cache
    // (a no-op when its feed already ended it) cannot cut an event off.
    await this.backend.close();
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.cache.stop();
  }
}

/**
 * One Storage watch served by the cache: cache deliveries become storage watch events, handed to
 * the callbacks asynchronously (never inside watch() or a write), in order, like a backend's.
 */
class CacheFedWatch implements Watcher, WatchSink<KeyValue> {
  private cache: WatchCache<KeyValue> | undefined;
  private inner: CacheWatcher<KeyValue> | undefined;
  private queue: WatchEvent[] = [];
  private terminal: Error | undefined;
  private scheduled = false;
  private stopped = false;

  constructor(
    private readonly prefix: string,
    private readonly onEvent: (ev: WatchEvent) => void,
    private readonly onError: ((err: Error) => void) | undefined,
  ) {}

  /** Register with the cache. Throws Compacted when the cache's ring no longer reaches back to afterRevision. */
  start(cache: WatchCache<KeyValue>, afterRevision: number): void {
    if (this.stopped) return;
    // The cache can replay the events after its horizon; like a backend, name the oldest
    // revision still replayable.
    if (afterRevision < cache.horizon) throw compactedError(this.prefix, afterRevision, cache.horizon + 1);
    this.cache = cache;
    const all: Predicate = { prefix: this.prefix, namespace: "", name: "" };
    this.inner = cache.watch(all, this, { from: "revision", revision: afterRevision }, false);
  }

  startOrFail(cache: WatchCache<KeyValue>, afterRevision: number): void {
    try {
      this.start(cache, afterRevision);
    } catch (err) {
      this.fail(err instanceof CacheError && err.code === "Stopped" ? (cache.failure ?? closedError()) : (err as Error));
    }
  }

  send(d: Delivery<KeyValue>): boolean {
    this.queue.push(toWatchEvent(d));
    this.schedule();
    // Storage watches have no backpressure (a backend's do not either): always accept.
    return true;
  }

  closed(reason: "slow" | "stopped"): void {
    // "slow" cannot happen while send() always accepts; kept total all the same.
    this.fail(reason === "slow" ? new Error("watch ended: consumer too slow") : (this.cache?.failure ?? closedError()));
  }

  /** End with err after the events already queued. */
  fail(err: Error): void {
    if (this.terminal) return;
    this.terminal = err;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.queue = [];
    this.inner?.stop();
  }

  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    queueMicrotask(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    const queue = this.queue;
    try {
      for (let i = 0; i < queue.length && !this.stopped; i++) this.onEvent(queue[i]!);
    } catch (err) {
      // As a backend does: a consumer that throws cannot be trusted to have seen the event.
      this.stop();
      this.onError?.(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    if (this.queue === queue) this.queue = [];
    if (this.terminal && !this.stopped) {
      this.stop();
      this.onError?.(this.terminal);
    }
  }
}

function toWatchEvent(d: Delivery<KeyValue>): WatchEvent {
  // A DELETED delivery carries the last state; the storage event stamps it with the deleting revision.
  const kv = d.type === "DELETED" ? { ...d.entry!.object, modRevision: d.revision } : d.entry!.object;
  const ev: WatchEvent = { type: d.type === "DELETED" ? "delete" : "put", kv, revision: d.revision };
  if (d.prev) ev.prevKv = d.prev.object;
  return ev;
}
