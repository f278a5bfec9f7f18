// All watch caches of a server: one per key prefix (group-resource), created on the first list
// or watch of that type and shared by all its versions and namespaces.
import type { StorageReader } from "../interface.js";
import { WatchCache, defaultWatchCacheOptions, type WatchCacheOptions } from "./watch-cache.js";
import type { Decoder } from "./types.js";

export interface CacheSpec<O> {
  prefix: string;
  namespaced: boolean;
  decode: Decoder<O>;
  /**
   * The decoder keeps part of each object only (in-process readers of metadata). A partial cache
   * answers partial requests only: a full request replaces it (its watchers end and relist). It
   * keeps no event history (in-process readers watch from its current state).
   */
  partial?: boolean;
}

/** The events a partial (metadata-only) cache keeps for informers resuming after a reconnect. */
const partialCacheEvents = 1024;

export class Cacher<O> {
  private readonly caches = new Map<string, WatchCache<O>>();
  private readonly partial = new WeakSet<WatchCache<O>>();
  readonly opts: WatchCacheOptions;
  private stopped = false;

  constructor(
    /** What the caches load from and follow: a backend, or anything offering its read interface. */
    private readonly storage: StorageReader,
    opts: Partial<WatchCacheOptions> = {},
  ) {
    this.opts = { ...defaultWatchCacheOptions, ...opts };
  }

  /** The cache for a prefix, loaded and ready. A cache whose feed broke, or a partial one asked for in full, is replaced. */
  async get(spec: CacheSpec<O>): Promise<WatchCache<O>> {
    if (this.stopped) throw new Error("watch caches stopped");
    let c = this.caches.get(spec.prefix);
    if (!c || c.isStopped || (!spec.partial && this.partial.has(c))) {
      c?.stop();
      // A partial cache serves no HTTP watch; its history is only for in-process informers that
      // resume after their previous cache went (an object made and removed in the gap is then
      // still heard), so it keeps a short one.
      const opts = spec.partial ? { ...this.opts, maxEvents: Math.min(this.opts.maxEvents, partialCacheEvents) } : this.opts;
      c = new WatchCache<O>({ storage: this.storage, prefix: spec.prefix, namespaced: spec.namespaced, decode: spec.decode }, opts);
      if (spec.partial) this.partial.add(c);
      this.caches.set(spec.prefix, c);
      const created = c;
      created.ready.catch(() => {
        if (this.caches.get(spec.prefix) === created) this.caches.delete(spec.prefix);
      });
    }
    await c.ready;
    return c;
  }

  /**
   * Stops and forgets the cache of a prefix whose type is no longer served (or changed shape):
   * its open watches end — their streams close, as kube-apiserver's do when a custom resource's
   * storage is torn down — and a later get() starts a fresh cache from storage.
   */
  drop(prefix: string): void {
    const c = this.caches.get(prefix);
    if (!c) return;
    this.caches.delete(prefix);
    c.stop();
  }

  /** The full (not partial) cache of a prefix when one is already made and running, without making one. */
  serving(prefix: string): WatchCache<O> | undefined {
    const c = this.caches.get(prefix);
    return c && !c.isStopped && !this.partial.has(c) ? c : undefined;
  }

  /** Already-created caches (tests, metrics). */
  peek(prefix: string): WatchCache<O> | undefined {
    return this.caches.get(prefix);
  }

  stop(): void {
    this.stopped = true;
    for (const c of this.caches.values()) c.stop();
    this.caches.clear();
  }
}
