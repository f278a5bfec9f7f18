// What mutating and validating webhooks share (upstream: generic.Webhook.ShouldCallHook and the
// call half of both dispatchers): whether a webhook applies to a request and as which resource,
// the objects in that resource's version, its match conditions, and one call whose answer is
// verified, with warnings and audit annotations recorded on the request.
import { newUUID } from "../../apimachinery/uuid.js";
import type { Authorizer } from "../../authz/authorizer.js";
import { forbidden, notFound } from "../../apimachinery/errors.js";
import { toScale } from "../../registry/scale-paths.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import type { ServiceResolver } from "../../webhook/service-resolver.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { matchRequest, NamespaceNotFound, type MatchedResource, type NamespaceLabels } from "../matching/index.js";
import { callWebhook } from "./call.js";
import { evaluateConditions } from "./conditions.js";
import { CallingWebhookError, WebhookDenial } from "./errors.js";
import type { AdmissionMetrics, WebhookType } from "../../observability/admission-metrics.js";
import { admissionRequestFields, admissionReview, noKnownReviewVersion, ReviewAnswerError, reviewVersionFor, verifyAnswer, type VerifiedResponse } from "./review.js";
import type { Hook } from "./source.js";

export interface WebhookDeps {
  types(): TypeRegistry;
  namespaceLabels: NamespaceLabels;
  authorizer(): Authorizer | undefined;
  resolveService(): ServiceResolver;
  log?(msg: string): void;
  metrics?: AdmissionMetrics;
}

/** A webhook that applies, with the request as it will see it. */
export interface Invocation {
  matched: MatchedResource;
  request: Record<string, unknown>;
  object?: KObject;
  oldObject?: KObject;
}

/** An object in another served version of its type (matchPolicy Equivalent). */
export async function inVersion(obj: KObject | undefined, t: ResourceType): Promise<KObject | undefined> {
  if (!obj || obj.apiVersion === t.apiVersion) return obj;
  if (t.conversion) return (await t.conversion.convert([obj], t.version))[0];
  return { ...obj, apiVersion: t.apiVersion, kind: t.kind };
}

/**
 * What a webhook sees of the request's objects: on /scale the autoscaling/v1 Scale view of the
 * object (upstream sends the Scale being written); otherwise the object, in the matched version.
 */
async function versioned(obj: KObject | undefined, a: AdmissionAttributes, matched: MatchedResource): Promise<KObject | undefined> {
  if (!obj) return obj;
  if (a.subresource === "scale" && a.type.scale) return toScale(obj, a.type.scale);
  return matched.equivalent ? inVersion(obj, matched.type) : obj;
}

/** The invocation of `hook` for the request, or undefined when it does not apply. Throws 404/403 as upstream. */
export async function shouldCall(hook: Hook, a: AdmissionAttributes, deps: WebhookDeps): Promise<Invocation | undefined> {
  let matched: MatchedResource | undefined;
  try {
    matched = await matchRequest(hook.criteria, a, { types: deps.types(), namespaceLabels: deps.namespaceLabels });
  } catch (e) {
    if (e instanceof NamespaceNotFound) throw notFound({ group: "", resource: "namespaces" }, e.namespace);
    throw e;
  }
  if (!matched) return undefined;
  const object = await versioned(a.object, a, matched);
  const oldObject = await versioned(a.oldObject, a, matched);
  const request = admissionRequestFields(a, matched);
  if (hook.conditions.length > 0) {
    const outcome = await evaluateConditions(hook.conditions, hook.failurePolicy, { a, matched, request, object, oldObject, authorizer: deps.authorizer() });
    if ("error" in outcome) throw forbidden(a.type.gr, a.name, outcome.error);
    if (!outcome.matches) return undefined;
  }
  return { matched, request, object, oldObject };
}

/** Sends the review and verifies the answer; records its warnings and audit annotations. */
export async function callHook(hook: Hook, inv: Invocation, a: AdmissionAttributes, mutating: boolean, deps: WebhookDeps): Promise<VerifiedResponse> {
  if ("error" in hook.endpoint) throw new CallingWebhookError(hook.name, `could not get REST client: ${hook.endpoint.error}`, 500);
  const version = reviewVersionFor(hook.spec.admissionReviewVersions);
  if (!version) throw new CallingWebhookError(hook.name, `could not create admission objects: ${noKnownReviewVersion}`, 400);
  // Each call is its own round trip with its own UID, as upstream (CreateAdmissionObjects): two
  // webhooks of one write, or one webhook reinvoked, never see the same one.
  const uid = newUUID();
  const review = admissionReview(version, uid, inv.request, inv.object, inv.oldObject);
  const text = await callWebhook(hook.name, hook.endpoint, review, {
    timeoutSeconds: hook.timeoutSeconds,
    resolveService: hook.endpoint.service ? deps.resolveService() : undefined,
    signal: a.signal,
  });
  let answer: VerifiedResponse;
  try {
    answer = verifyAnswer(text, version, uid, mutating);
  } catch (e) {
    if (e instanceof ReviewAnswerError) throw new CallingWebhookError(hook.name, e.message);
    throw e;
  }
  // As upstream: an annotation already set to another value is kept (and the new one dropped).
  for (const [k, v] of Object.entries(answer.auditAnnotations)) a.annotate(`${hook.name}/${k}`, v);
  for (const w of answer.warnings) a.warnings.push(w);
  return answer;
}

/** Side effects a dry run may trigger: only webhooks declaring None or NoneOnDryRun are called. */
export const dryRunSafe = (hook: Hook) => hook.spec.sideEffects === "None" || hook.spec.sideEffects === "NoneOnDryRun";

/**
 * Records one call as upstream's dispatchers do: its latency and status, and why it rejected
 * the request when it did (the webhook said no, it could not be called, or the server failed).
 */
export function observeCall(deps: WebhookDeps, hook: Hook, a: AdmissionAttributes, type: WebhookType, err: unknown, seconds: number): void {
  const m = deps.metrics;
  if (!m) return;
  const op = a.operation;
  if (err === undefined) {
    m.observeWebhook(hook.name, type, op, false, 200, seconds);
  } else if (err instanceof CallingWebhookError) {
    const rejected = hook.failurePolicy !== "Ignore";
    // A call the request's own end cancelled is not the webhook's rejection (upstream leaves it out).
    if (rejected && !a.signal?.aborted) m.observeWebhookRejection(hook.name, type, op, "calling_webhook_error", err.code);
    m.observeWebhook(hook.name, type, op, rejected, err.code, seconds);
  } else if (err instanceof WebhookDenial) {
    m.observeWebhookRejection(hook.name, type, op, "no_error", err.code);
    m.observeWebhook(hook.name, type, op, true, err.code, seconds);
  } else {
    m.observeWebhookRejection(hook.name, type, op, "apiserver_internal_error", 0);
    m.observeWebhook(hook.name, type, op, true, 0, seconds);
  }
}

/** A failing-open webhook, counted unless the request itself went away. */
export function observeFailOpen(deps: WebhookDeps, hook: Hook, a: AdmissionAttributes, type: WebhookType): void {
  if (!a.signal?.aborted) deps.metrics?.observeWebhookFailOpen(hook.name, type);
}
