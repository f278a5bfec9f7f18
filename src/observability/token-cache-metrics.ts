// The token cache families of kube-apiserver 1.34 (apiserver/pkg/authentication/token/cache):
// look-ups answered from the cache or not, how long they took (in whole milliseconds, as
// upstream rounds them), the authenticator calls made on a miss by outcome, and the look-ups
// waiting on a call and the calls under way.
import { CounterFamily, GaugeFamily, HistogramFamily, defaultBuckets } from "./metric-family.js";

export class TokenCacheMetrics {
  readonly requests = new CounterFamily({ name: "authentication_token_cache_request_total", help: "Token look-ups in the authentication cache, by status: hit or miss.", stability: "ALPHA", labels: ["status"] });
  readonly duration = new HistogramFamily({ name: "authentication_token_cache_request_duration_seconds", help: "How long token look-ups in the authentication cache took (whole milliseconds, in seconds), by status: hit or miss.", stability: "ALPHA", labels: ["status"], buckets: defaultBuckets });
  readonly fetches = new CounterFamily({ name: "authentication_token_cache_fetch_total", help: "Calls the authentication cache made to its authenticator on a miss, by status: ok (an answer, authenticated or not) or error.", stability: "ALPHA", labels: ["status"] });
  readonly active = new GaugeFamily({ name: "authentication_token_cache_active_fetch_count", help: "Look-ups waiting on an authenticator call (blocked) and authenticator calls under way (in_flight).", stability: "ALPHA", labels: ["status"] });
  readonly families = [this.requests, this.duration, this.fetches, this.active];

  /** A look-up that started at `startedMs` (performance.now()) ended, answered from the cache or not. */
  requested(hit: boolean, startedMs: number): void {
    // Each series is made when first recorded into, as upstream's vectors make theirs.
    const status = hit ? "hit" : "miss";
    this.requests.with(status).inc();
    this.duration.with(status).observe(Math.floor(performance.now() - startedMs) / 1000);
  }

  /** A look-up waits on a call (its own or one under way for the same key): returns what ends the wait. */
  blocking(): () => void {
    const g = this.active.with("blocked");
    g.inc();
    return () => g.dec();
  }

  /** A call starts: returns what records its end, `ok` unless it failed. */
  fetching(): (ok: boolean) => void {
    const g = this.active.with("in_flight");
    g.inc();
    return (ok) => {
      this.fetches.with(ok ? "ok" : "error").inc();
      g.dec();
    };
  }
}
