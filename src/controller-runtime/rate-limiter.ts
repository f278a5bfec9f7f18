// How long a key waits before it is retried after a failed reconcile (upstream: client-go's
// util/workqueue default_rate_limiters.go). The runtime asks `when(key)` after each failure and
// calls `forget(key)` after a success, so a key's backoff starts over once it goes through.

export interface RateLimiter {
  /** The wait before `key` is worked again; counts one more failure of it. */
  when(key: string): number;
  /** `key` went through: its failures no longer count. */
  forget(key: string): void;
  /** How many times `key` has failed since it was last forgotten. */
  retries(key: string): number;
}

/** Per key: base·2^failures, capped at max (upstream ItemExponentialFailureRateLimiter). */
export function itemExponentialRateLimiter(baseMs: number, maxMs: number): RateLimiter {
  const failures = new Map<string, number>();
  return {
    when(key) {
      const n = failures.get(key) ?? 0;
      failures.set(key, n + 1);
      const backoff = baseMs * 2 ** n;
      return Number.isFinite(backoff) && backoff <= maxMs ? backoff : maxMs;
    },
    forget: (key) => void failures.delete(key),
    retries: (key) => failures.get(key) ?? 0,
  };
}

/**
 * Over all keys: a token bucket of `burst` tokens refilled at `perSecond` (upstream
 * BucketRateLimiter over golang.org/x/time/rate): each retry takes a token, and waits for it when
 * the bucket is empty, so a storm of failures cannot retry faster than the rate.
 */
export function bucketRateLimiter(perSecond: number, burst: number, now: () => number = Date.now): RateLimiter {
  let tokens = burst;
  let last = now();
  return {
    when() {
      const t = now();
      tokens = Math.min(burst, tokens + ((t - last) / 1000) * perSecond);
      last = t;
      tokens -= 1; // reserved now, possibly on credit: the wait pays the debt back
      return tokens >= 0 ? 0 : (-tokens / perSecond) * 1000;
    },
    forget: () => undefined,
    retries: () => 0,
  };
}

/** The longest wait any of `limiters` asks for (upstream MaxOfRateLimiter). */
export function maxOfRateLimiters(...limiters: RateLimiter[]): RateLimiter {
  return {
    when: (key) => Math.max(...limiters.map((l) => l.when(key))),
    forget: (key) => limiters.forEach((l) => l.forget(key)),
    retries: (key) => Math.max(...limiters.map((l) => l.retries(key))),
  };
}

/**
 * client-go's DefaultControllerRateLimiter: per key 5ms doubling up to 1000s, and overall 10
 * retries a second with bursts of 100.
 */
export function defaultControllerRateLimiter(): RateLimiter {
  return maxOfRateLimiters(itemExponentialRateLimiter(5, 1000 * 1000), bucketRateLimiter(10, 100));
}

/** The same wait after every failure (controllers whose retry pause predates the runtime). */
export function fixedDelayRateLimiter(ms: number): RateLimiter {
  const failures = new Map<string, number>();
  return {
    when(key) {
      failures.set(key, (failures.get(key) ?? 0) + 1);
      return ms;
    },
    forget: (key) => void failures.delete(key),
    retries: (key) => failures.get(key) ?? 0,
  };
}
