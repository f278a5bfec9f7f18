// The authorization families of kube-apiserver 1.34's filter (apiserver/pkg/endpoints/filters):
// attempts and their duration by result. Access reviews are not counted (they do not pass it).
import { CounterFamily, HistogramFamily, exponentialBuckets, type CounterCell, type HistogramCell } from "./metric-family.js";

export type AuthorizationResult = "allowed" | "denied" | "no-opinion" | "error";

export class AuthorizationFilterMetrics {
  readonly attempts = new CounterFamily({
    name: "authorization_attempts_total",
    help: "Authorization decisions of the request path, by result: allowed, denied, no-opinion or error.",
    stability: "ALPHA",
    labels: ["result"],
  });
  readonly duration = new HistogramFamily({ name: "authorization_duration_seconds", help: "How long authorization took, in seconds, by result.", stability: "ALPHA", labels: ["result"], buckets: exponentialBuckets(0.001, 2, 15) });
  readonly families = [this.attempts, this.duration];
  private readonly byResult = new Map<AuthorizationResult, [CounterCell, HistogramCell]>();

  observe(result: AuthorizationResult, seconds: number): void {
    let s = this.byResult.get(result);
    if (!s) this.byResult.set(result, (s = [this.attempts.with(result), this.duration.with(result)]));
    s[0].inc();
    s[1].observe(seconds);
  }
}
