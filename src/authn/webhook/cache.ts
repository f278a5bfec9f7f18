// The token webhook's answer cache, as kube-apiserver's token cache in front of the webhook: keyed
// by an HMAC-SHA256 (random per-process key) of the token and the audiences, so tokens are not kept
// in memory; an authenticated answer and a "not authenticated" answer (no error) are cached for
// their TTLs (kube-apiserver uses --authentication-token-webhook-cache-ttl for both); an error
// (status.error, the webhook failing or unreachable) is never cached. Concurrent look-ups of one
// key share one webhook call. Its look-ups and calls are counted as upstream's cache counts them
// (authentication_token_cache_*).
import { createHmac, randomBytes } from "node:crypto";
import { expiringCache } from "../../apimachinery/expiring-cache.js";
import { TokenCacheMetrics } from "../../observability/token-cache-metrics.js";

export interface CacheOptions {
  successTtlMs: number;
  failureTtlMs: number;
  /** Entries kept at most (the least recently used go first). Upstream: 32 stripes of 1024. */
  maxEntries?: number;
  now?: () => number;
}

/** What a look-up settled on: cacheable answers, and errors (never cached). */
export type Lookup<T> = { ok: true; value: T } | { ok: false } | { error: string };

export class TokenCache<T> {
  private readonly key = randomBytes(32);
  private readonly entries;
  private readonly inFlight = new Map<string, Promise<Lookup<T>>>();
  readonly metrics = new TokenCacheMetrics();

  constructor(private readonly o: CacheOptions) {
    this.entries = expiringCache<Lookup<T>>({ max: o.maxEntries ?? 32 * 1024, now: o.now });
  }

  /** The cache key: length-prefixed token, count of audiences, each length-prefixed. */
  keyOf(token: string, audiences: readonly string[] | undefined): string {
    const h = createHmac("sha256", this.key);
    const len = (n: number) => {
      const b = Buffer.alloc(4);
      b.writeUInt32BE(n >>> 0);
      h.update(b);
    };
    const str = (s: string) => {
      const b = Buffer.from(s, "utf8");
      len(b.length);
      h.update(b);
    };
    str(token);
    const auds = audiences ?? [];
    len(auds.length);
    for (const a of auds) str(a);
    return h.digest("base64");
  }

  get size(): number {
    return this.entries.size;
  }

  async lookup(token: string, audiences: readonly string[] | undefined, fetch: () => Promise<Lookup<T>>): Promise<Lookup<T>> {
    const started = performance.now();
    const k = this.keyOf(token, audiences);
    const hit = this.entries.get(k);
    if (hit) {
      this.metrics.requested(true, started);
      return hit;
    }
    const unblock = this.metrics.blocking();
    try {
      let pending = this.inFlight.get(k);
      if (!pending) this.inFlight.set(k, (pending = this.fetchOnce(k, fetch)));
      return await pending;
    } finally {
      unblock();
      this.metrics.requested(false, started);
    }
  }

  /** The one call for a key, its answer cached for its TTL (an error never). */
  private async fetchOnce(k: string, fetch: () => Promise<Lookup<T>>): Promise<Lookup<T>> {
    const fetched = this.metrics.fetching();
    let r: Lookup<T>;
    try {
      r = await fetch();
      const ttl = "error" in r ? 0 : r.ok ? this.o.successTtlMs : this.o.failureTtlMs;
      if (ttl > 0) this.entries.set(k, r, { ttl });
    } catch (e) {
      r = { error: (e as Error)?.message ?? String(e) };
    } finally {
      this.inFlight.delete(k);
    }
    fetched(!("error" in r));
    return r;
  }
}
