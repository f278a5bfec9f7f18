// Webhook authorizer: each request's attributes go to a remote service as a SubjectAccessReview
// (authorization.k8s.io v1beta1 — groups in spec.group — or v1 — spec.groups), and its status
// decides: allowed → allow, denied → deny (both → deny with an error), neither → no opinion, with
// status.reason as the reason (status.evaluationError is informational and ignored, as upstream).
// A webhook that cannot be reached or fails (non-2xx, a malformed answer, the timeout) gives the
// failure policy's decision (NoOpinion or Deny) with the error; 500, 504, 429, a Retry-After and
// a reset connection are retried with upstream's backoff. Answers are cached by the review's spec
// for authorizedTTL / unauthorizedTTL (0: not cached). With matchConditions (CEL over `request`,
// the whole v1 spec, ./match-conditions.ts), the webhook is asked only when all are true; any
// false → no opinion; an evaluation error → the failure policy's decision with the error.
import { createHash } from "node:crypto";
import { expiringCache } from "../../apimachinery/expiring-cache.js";
import type { CelProgram } from "../../cel/program.js";
import { CallError, defaultBackoff, postReview, withBackoff, type Backoff } from "../../webhook/client.js";
import type { WebhookConnection } from "../../webhook/kubeconfig.js";
import type { Attributes, Authorizer, AuthzResult, Decision } from "../authorizer.js";
import { evaluateMatchConditions } from "./match-conditions.js";
import { omitEmpty, reviewSpecOf, wireSpec, type ReviewSpec, type SarVersion } from "./review-spec.js";

export type { SarVersion } from "./review-spec.js";

export function checkSarVersion(version: string): SarVersion {
  if (version === "v1" || version === "v1beta1") return version;
  throw new Error(`unsupported webhook authorizer version "${version}", supported versions are "v1", "v1beta1"`);
}

/** What the webhook counts (apiserver_authorization_webhook_* and match condition metrics). */
export interface WebhookMetricsSink {
  evaluation(name: string, result: "success" | "canceled" | "timeout" | "error", seconds: number): void;
  failOpen(name: string, result: string): void;
  matchConditionError(name: string): void;
  matchConditionExclusion(name: string): void;
}

export interface WebhookAuthorizerOptions {
  /** The authorizer's name (the configuration file's; "default" for the flags). */
  name: string;
  connection: WebhookConnection;
  version: SarVersion;
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  /** Per call (the configuration's `timeout`; 30s for the flags). */
  timeoutMs: number;
  /** Decision when the webhook fails or a match condition errs. */
  failurePolicy: "NoOpinion" | "Deny";
  /** Compiled match conditions (all must be true to ask the webhook). */
  matchConditions?: readonly CelProgram[];
  authorizeWithSelectors: boolean;
  backoff?: Backoff;
  metrics?: WebhookMetricsSink;
  log?: (msg: string) => void;
}

interface ReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

async function callOnce(o: WebhookAuthorizerOptions, spec: ReviewSpec): Promise<ReviewStatus> {
  const s = await postReview(
    o.connection,
    { kind: "SubjectAccessReview", apiVersion: `authorization.k8s.io/${o.version}`, spec: wireSpec(spec, o.version), status: { allowed: false } },
    { timeoutMs: o.timeoutMs, userAgent: "kapi/authorization-webhook" },
  );
  const bool = (k: string) => {
    const v = s[k];
    if (v !== undefined && v !== null && typeof v !== "boolean") throw new CallError(`the webhook's answer has a malformed status.${k}`, false);
    return v === true;
  };
  const str = (k: string) => {
    const v = s[k];
    if (v !== undefined && v !== null && typeof v !== "string") throw new CallError(`the webhook's answer has a malformed status.${k}`, false);
    return typeof v === "string" ? v : "";
  };
  return { allowed: bool("allowed"), denied: bool("denied"), reason: str("reason"), evaluationError: str("evaluationError") };
}

/** Requests whose client-chosen attributes are this large are not cached (upstream's DoS guard). */
const maxControlledAttrCacheSize = 10_000;
function shouldCache(a: Attributes): boolean {
  const n = a.namespace.length + a.verb.length + a.apiGroup.length + a.apiVersion.length + a.resource.length + a.subresource.length + a.name.length + a.path.length;
  return n < maxControlledAttrCacheSize;
}

function isTimeout(e: unknown): boolean {
  const msg = (e as Error)?.message ?? "";
  return /deadline exceeded|Client\.Timeout/.test(msg) || (e as { statusCode?: number }).statusCode === 504;
}

export function webhookAuthorizer(o: WebhookAuthorizerOptions): Authorizer & { cacheSize(): number } {
  // Answers keyed by the review spec, each for its TTL (0: not cached); the least recently used go first.
  const cache = expiringCache<ReviewStatus>({ max: 1024 });
  const backoff = o.backoff ?? defaultBackoff;
  const onError: Decision = o.failurePolicy === "Deny" ? "deny" : "no-opinion";
  const conditions = o.matchConditions ?? [];
  return {
    cacheSize: () => cache.size,
    rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: "webhook authorizer does not support user rule resolution" }),
    async authorize(a: Attributes): Promise<AuthzResult> {
      const spec = reviewSpecOf(a, o.authorizeWithSelectors);
      const m = evaluateMatchConditions(conditions, spec, o.authorizeWithSelectors);
      if (m.error) o.metrics?.matchConditionError(o.name);
      if (m.result === "error") return { decision: onError, reason: "", error: m.error! };
      if (m.result === "no-match") {
        o.metrics?.matchConditionExclusion(o.name);
        return { decision: "no-opinion", reason: "" };
      }
      const key = createHash("sha256").update(JSON.stringify(omitEmpty(spec))).digest("base64");
      let status = cache.get(key);
      if (!status) {
        let lastResult: "success" | "timeout" | "error" = "error";
        try {
          status = await withBackoff(backoff, async () => {
            const t0 = process.hrtime.bigint();
            try {
              const s = await callOnce(o, spec);
              lastResult = "success";
              return s;
            } catch (e) {
              lastResult = isTimeout(e) ? "timeout" : "error";
              throw e;
            } finally {
              o.metrics?.evaluation(o.name, lastResult, Number(process.hrtime.bigint() - t0) / 1e9);
            }
          });
        } catch (e) {
          const msg = (e as Error).message;
          o.log?.(`Failed to make webhook authorizer request: ${msg}`);
          if (onError === "no-opinion") o.metrics?.failOpen(o.name, lastResult);
          return { decision: onError, reason: "", error: msg };
        }
        const ttl = status.allowed ? o.authorizedTtlMs : o.unauthorizedTtlMs;
        if (shouldCache(a) && ttl > 0) cache.set(key, status, { ttl });
      }
      // status.evaluationError is informational: as upstream, only allowed/denied/reason decide.
      const reason = status.reason ?? "";
      if (status.denied && status.allowed) return { decision: "deny", reason, error: "webhook subject access review returned both allow and deny response" };
      if (status.denied) return { decision: "deny", reason };
      if (status.allowed) return { decision: "allow", reason };
      return { decision: "no-opinion", reason };
    },
  };
}
