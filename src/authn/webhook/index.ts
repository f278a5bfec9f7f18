// Token webhook (--authentication-token-webhook-config-file, -cache-ttl, -version): a bearer token
// is sent to the remote service in a TokenReview (authentication.k8s.io v1beta1 by default, or
// v1) and its `status` is honoured as kube-apiserver honours it:
// - audiences: when the request is audience-bound (a TokenReview's spec.audiences, or
//   --api-audiences), they go in spec.audiences; the answer's status.audiences (or, when it has
//   none, the server's own audiences) must intersect them, else the token is not this method's;
// - authenticated: false → with status.error an error (401), without one not this method's (the
//   union then answers "invalid bearer token");
// - authenticated: true → status.user (username, uid, groups, extra) as is.
// A failing call (network error, non-2xx) is an error; 500, 504, 429, a Retry-After and a reset
// connection are retried with upstream's backoff (500ms ×1.5, jitter 0.2, 5 attempts).
// Answers are cached (./cache.ts) for the TTL; errors are not.
import { bearerToken, type Authenticator } from "../authenticator.js";
import type { UserInfo } from "../../apimachinery/user.js";
import { TokenCache, type Lookup } from "./cache.js";
import { loadWebhookKubeconfig, type WebhookConnection } from "./kubeconfig.js";
import { CallError, defaultBackoff, postReview, withBackoff, type Backoff } from "../../webhook/client.js";

export { defaultBackoff, type Backoff };

export type WebhookVersion = "v1" | "v1beta1";

export interface WebhookOptions {
  connection: WebhookConnection;
  version: WebhookVersion;
  cacheTtlMs: number;
  /** The server's own audiences (--api-audiences): assumed when the answer names none. */
  implicitAudiences?: readonly string[];
  backoff?: Backoff;
  log?: (msg: string) => void;
}

export function checkWebhookVersion(version: string): WebhookVersion {
  if (version === "v1" || version === "v1beta1") return version;
  throw new Error(`unsupported authentication webhook version "${version}", supported versions are "v1", "v1beta1"`);
}

interface ReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  audiences?: string[];
  error?: string;
}

async function callOnce(conn: WebhookConnection, version: WebhookVersion, token: string, audiences: readonly string[] | undefined): Promise<ReviewStatus> {
  const spec: Record<string, unknown> = { token };
  if (audiences && audiences.length > 0) spec.audiences = audiences;
  return (await postReview(conn, { kind: "TokenReview", apiVersion: `authentication.k8s.io/${version}`, spec, status: { user: {} } })) as ReviewStatus;
}

const intersect = (a: readonly string[], b: readonly string[]) => a.filter((x) => b.includes(x));

interface Answer {
  user: UserInfo;
  audiences?: string[];
}

function checkStrings(v: unknown, what: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw new CallError(`the webhook's answer has a malformed ${what}`, false);
  return v as string[];
}

export function webhookTokenAuthenticator(o: WebhookOptions): Authenticator & { cache: TokenCache<Answer> } {
  const cache = new TokenCache<Answer>({ successTtlMs: o.cacheTtlMs, failureTtlMs: o.cacheTtlMs });
  const implicit = o.implicitAudiences ?? [];
  const backoff = o.backoff ?? defaultBackoff;
  const review = async (token: string, wanted: readonly string[] | undefined): Promise<Lookup<Answer>> => {
    let status: ReviewStatus;
    try {
      status = await withBackoff(backoff, () => callOnce(o.connection, o.version, token, wanted));
    } catch (e) {
      o.log?.(`Failed to make webhook authenticator request: ${(e as Error).message}`);
      return { error: (e as Error).message };
    }
    let auds: string[] | undefined;
    try {
      if (wanted && wanted.length > 0) {
        const got = checkStrings(status.audiences, "status.audiences") ?? [];
        auds = intersect(wanted, got.length > 0 ? got : implicit);
        if (auds.length === 0) return { ok: false };
      }
      if (status.authenticated !== true) return status.error ? { error: String(status.error) } : { ok: false };
      const u = status.user ?? {};
      const groups = checkStrings(u.groups, "status.user.groups") ?? [];
      let extra: Record<string, string[]> | undefined;
      if (u.extra !== undefined && u.extra !== null) {
        if (typeof u.extra !== "object" || Array.isArray(u.extra)) throw new CallError("the webhook's answer has a malformed status.user.extra", false);
        extra = {};
        for (const [k, v] of Object.entries(u.extra)) extra[k] = checkStrings(v, "status.user.extra") ?? [];
      }
      const user: UserInfo = { name: String(u.username ?? ""), groups, ...(u.uid ? { uid: String(u.uid) } : {}), ...(extra ? { extra } : {}) };
      return { ok: true, value: { user, ...(auds ? { audiences: auds } : {}) } };
    } catch (e) {
      return { error: (e as Error).message };
    }
  };
  return {
    name: "webhook",
    cache,
    async authenticate(req) {
      const token = bearerToken(req);
      if (!token) return undefined;
      const wanted = req.audiences && req.audiences.length > 0 ? req.audiences : undefined;
      const r = await cache.lookup(token, wanted, () => review(token, wanted));
      if ("error" in r) return { error: r.error };
      if (!r.ok) return undefined;
      const { user, audiences } = r.value;
      const copy: UserInfo = { ...user, groups: [...user.groups], ...(user.extra ? { extra: Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])) } : {}) };
      return audiences ? { user: copy, audiences: [...audiences] } : { user: copy };
    },
  };
}

/** The --authentication-token-webhook-* flags. */
export interface WebhookFlags {
  authenticationTokenWebhookConfigFile?: string;
  /** ms; default 2m. */
  authenticationTokenWebhookCacheTtlMs?: number;
  authenticationTokenWebhookVersion?: string;
}

export function webhookFromFlags(f: WebhookFlags, implicitAudiences: readonly string[] = [], log?: (msg: string) => void): ReturnType<typeof webhookTokenAuthenticator> | undefined {
  const version = checkWebhookVersion(f.authenticationTokenWebhookVersion ?? "v1beta1");
  if (!f.authenticationTokenWebhookConfigFile) return undefined;
  return webhookTokenAuthenticator({
    connection: loadWebhookKubeconfig(f.authenticationTokenWebhookConfigFile),
    version,
    cacheTtlMs: f.authenticationTokenWebhookCacheTtlMs ?? 120_000,
    implicitAudiences,
    log,
  });
}
