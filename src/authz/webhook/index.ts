// Webhook authorizer: each request's attributes go to a remote service as a SubjectAccessReview
// (authorization.k8s.io v1beta1 — groups in spec.group — or v1 — spec.groups), and its status
// decides: allowed → allow, denied → deny (both → deny with an error), neither → no opinion, with
// status.reason as the reason (status.evaluationError is informational and ignored, as upstream).
// A webhook that cannot be reached or fails (non-2xx, a malformed answer, the timeout) gives the
// failure policy's decision (NoOpinion or Deny) with the error; 500, 504, 429, a Retry-After and
// a reset connection are retried with upstream's backoff. Answers are cached by the review's spec
// for authorizedTTL / unauthorizedTTL (0: not cached). With matchConditions (CEL over `request`,
// the spec as v1), the webhook is asked only when all are true; any false → no opinion; an
// evaluation error → the failure policy.
import { createHash } from "node:crypto";
import type { UserInfo } from "../../authn/user.js";
import { BoolType, formatType } from "../../cel/types.js";
import { compileCel, type CelProgram } from "../../cel/program.js";
import { toCel } from "../../cel/convert.js";
import { authorizationMatchEnvironment, subjectAccessReviewSpecType } from "../../cel/environments.js";
import type { CelEnvironment } from "../../cel/program.js";
import { CallError, defaultBackoff, postReview, withBackoff, type Backoff } from "../../webhook/client.js";
import type { WebhookConnection } from "../../webhook/kubeconfig.js";
import type { Attributes, Authorizer, AuthzResult, Decision } from "../authorizer.js";
import type { FieldRequirement } from "../../apimachinery/fields.js";
import type { LabelRequirement } from "../../apimachinery/labels.js";

export type SarVersion = "v1" | "v1beta1";

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

const envs = new Map<boolean, CelEnvironment>();
/** The CEL environment of match conditions (one object per selector setting, so programs are cached). */
export function matchEnvironment(authorizeWithSelectors: boolean): CelEnvironment {
  let env = envs.get(authorizeWithSelectors);
  if (!env) envs.set(authorizeWithSelectors, (env = authorizationMatchEnvironment(authorizeWithSelectors)));
  return env;
}

/** Compiles a match condition; throws with upstream's detail ("compilation failed: …", "must evaluate to bool …"). */
export function compileMatchCondition(expression: string, authorizeWithSelectors: boolean): CelProgram {
  let p: CelProgram;
  try {
    p = compileCel(expression, matchEnvironment(authorizeWithSelectors));
  } catch (e) {
    throw new Error(`compilation failed: ${(e as Error).message}`);
  }
  if (formatType(p.resultType) !== formatType(BoolType)) throw new Error(`must evaluate to bool but got ${formatType(p.resultType)}`);
  return p;
}

type SelectorRequirement = { key: string; operator: string; values?: string[] };

function fieldRequirements(reqs: readonly FieldRequirement[] | undefined): SelectorRequirement[] {
  return (reqs ?? []).map((r) => ({ key: r.field, operator: r.operator === "=" ? "In" : "NotIn", values: [r.value] }));
}

function labelRequirements(reqs: readonly LabelRequirement[] | undefined): SelectorRequirement[] {
  const out: SelectorRequirement[] = [];
  for (const r of reqs ?? []) {
    switch (r.operator) {
      case "=":
      case "==":
      case "in":
        out.push({ key: r.key, operator: "In", values: [...r.values] });
        break;
      case "!=":
      case "notin":
        out.push({ key: r.key, operator: "NotIn", values: [...r.values] });
        break;
      case "exists":
        out.push({ key: r.key, operator: "Exists" });
        break;
      case "!":
        out.push({ key: r.key, operator: "DoesNotExist" });
        break;
      default: // gt, lt: left out (requirements are ANDed, so leaving one out only widens the check)
    }
  }
  return out;
}

/** The review's spec in v1 field names, Go's field order and omitempty. */
export function reviewSpec(a: Attributes, authorizeWithSelectors: boolean): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (a.isResourceRequest) {
    const ra: Record<string, unknown> = {};
    const put = (k: string, v: string) => {
      if (v) ra[k] = v;
    };
    put("namespace", a.namespace);
    put("verb", a.verb);
    put("group", a.apiGroup);
    put("version", a.apiVersion);
    put("resource", a.resource);
    put("subresource", a.subresource);
    put("name", a.name);
    if (authorizeWithSelectors) {
      const f = fieldRequirements(a.fieldSelector?.requirements);
      if (f.length > 0) ra.fieldSelector = { requirements: f };
      const l = labelRequirements(a.labelSelector?.requirements);
      if (l.length > 0) ra.labelSelector = { requirements: l };
    }
    spec.resourceAttributes = ra;
  } else {
    const na: Record<string, unknown> = {};
    if (a.path) na.path = a.path;
    if (a.verb) na.verb = a.verb;
    spec.nonResourceAttributes = na;
  }
  const u: UserInfo = a.user;
  if (u.name) spec.user = u.name;
  if (u.groups.length > 0) spec.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length > 0) spec.extra = u.extra;
  if (u.uid) spec.uid = u.uid;
  return spec;
}

/** v1 spec → the wire form of the configured version (v1beta1 names the groups `group`). */
function wireSpec(spec: Record<string, unknown>, version: SarVersion): Record<string, unknown> {
  if (version === "v1") return spec;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(spec)) out[k === "groups" ? "group" : k] = v;
  return out;
}

interface ReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

async function callOnce(o: WebhookAuthorizerOptions, spec: Record<string, unknown>): Promise<ReviewStatus> {
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

/** An expiring cache of answers, keyed by the review spec; the oldest entries go first. */
class AnswerCache {
  private readonly entries = new Map<string, { status: ReviewStatus; expires: number }>();
  constructor(private readonly max = 1024) {}
  get(k: string): ReviewStatus | undefined {
    const e = this.entries.get(k);
    if (!e) return undefined;
    if (e.expires <= Date.now()) {
      this.entries.delete(k);
      return undefined;
    }
    return e.status;
  }
  set(k: string, status: ReviewStatus, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.entries.delete(k);
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(k, { status, expires: Date.now() + ttlMs });
  }
  get size(): number {
    return this.entries.size;
  }
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
  const cache = new AnswerCache();
  const backoff = o.backoff ?? defaultBackoff;
  const onError: Decision = o.failurePolicy === "Deny" ? "deny" : "no-opinion";
  const conditions = o.matchConditions ?? [];
  const specType = subjectAccessReviewSpecType(o.authorizeWithSelectors);

  const matches = (spec: Record<string, unknown>): { matched: boolean } | { error: string } => {
    if (conditions.length === 0) return { matched: true };
    const request = toCel(spec, specType);
    const errors: string[] = [];
    for (const p of conditions) {
      try {
        const { value } = p.eval({ request });
        if ((value as { value?: unknown }).value === false || (value as unknown) === false) return { matched: false };
      } catch (e) {
        errors.push(`cel evaluation error: expression '${p.expression}' resulted in error: ${(e as Error).message}`);
      }
    }
    if (errors.length > 0) return { error: errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]` };
    return { matched: true };
  };

  return {
    cacheSize: () => cache.size,
    rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: "webhook authorizer does not support user rule resolution" }),
    async authorize(a: Attributes): Promise<AuthzResult> {
      const spec = reviewSpec(a, o.authorizeWithSelectors);
      const m = matches(spec);
      if ("error" in m) {
        o.metrics?.matchConditionError(o.name);
        return { decision: onError, reason: "", error: m.error };
      }
      if (!m.matched) {
        o.metrics?.matchConditionExclusion(o.name);
        return { decision: "no-opinion", reason: "" };
      }
      const key = createHash("sha256").update(JSON.stringify(spec)).digest("base64");
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
        if (shouldCache(a)) cache.set(key, status, status.allowed ? o.authorizedTtlMs : o.unauthorizedTtlMs);
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
