// The authentication families of kube-apiserver 1.34's filter (apiserver/pkg/endpoints/filters):
// attempts and their duration by result, and authenticated requests by a coarse user category
// (never the name itself: bounded cardinality, and no user names on a metrics page).
import { CounterFamily, HistogramFamily, exponentialBuckets, type CounterCell, type HistogramCell } from "./metric-family.js";

/** success: a user; failure: no authenticator recognised the request; error: a credential was refused. */
export type AuthenticationResult = "success" | "failure" | "error";

/** Upstream's compressUsername: a few known identities by name, e-mail addresses, everyone else. */
export function usernameCategory(name: string): string {
  if (name === "admin" || name === "client" || name === "kube_proxy" || name === "kubelet" || name === "system:serviceaccount:kube-system:default") return name;
  return name.includes("@") ? "email_id" : "other";
}

export class AuthenticationMetrics {
  readonly users = new CounterFamily({ name: "authenticated_user_requests", help: "Authenticated requests, by a category of the user name (a few well-known names, email_id, other).", stability: "ALPHA", labels: ["username"] });
  readonly attempts = new CounterFamily({ name: "authentication_attempts", help: "Authentication attempts, by result: success, failure (nothing recognised) or error (a credential refused).", stability: "ALPHA", labels: ["result"] });
  readonly duration = new HistogramFamily({ name: "authentication_duration_seconds", help: "How long authentication took, in seconds, by result.", stability: "ALPHA", labels: ["result"], buckets: exponentialBuckets(0.001, 2, 15) });
  readonly families = [this.users, this.attempts, this.duration];
  private readonly byResult = new Map<AuthenticationResult, [CounterCell, HistogramCell]>();

  /** One pass of the authentication filter; `username` when it authenticated someone. */
  observe(result: AuthenticationResult, seconds: number, username?: string): void {
    let s = this.byResult.get(result);
    if (!s) this.byResult.set(result, (s = [this.attempts.with(result), this.duration.with(result)]));
    s[0].inc();
    s[1].observe(seconds);
    if (username !== undefined) this.users.with(usernameCategory(username)).inc();
  }
}
