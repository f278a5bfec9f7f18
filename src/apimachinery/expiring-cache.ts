// The one bounded cache with per-entry lifetimes kapi keeps answers in (webhook authentication
// and authorization answers, live LimitRange reads): lru-cache, sized like upstream's LRU caches,
// each entry living for the TTL its setter gives it. Entries expire on the wall clock (`Date.now`,
// or the clock a test injects), checked at every read with no timer running.
import { LRUCache } from "lru-cache";

export interface ExpiringCacheOptions {
  /** Entries kept at most; the least recently used goes first. */
  max: number;
  /** Milliseconds clock; `Date.now` when absent. */
  now?: () => number;
}

export type ExpiringCache<V extends {}> = LRUCache<string, V>;

/** An empty cache; `set(key, value, { ttl })` keeps an entry `ttl` ms (a `ttl` of 0 or less is not stored: callers skip it). */
export function expiringCache<V extends {}>(o: ExpiringCacheOptions): ExpiringCache<V> {
  const now = o.now ?? Date.now;
  return new LRUCache<string, V>({
    max: o.max,
    // lru-cache reads a start time of 0 as "no lifetime": shifted by one, a test clock starting at 0 still expires entries.
    perf: { now: () => now() + 1 },
    // Read the clock at every check (the default caches it for 1 ms behind a timer).
    ttlResolution: 0,
  });
}
