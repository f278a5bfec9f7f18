// May this user do this? The authorizer decides on the request's attributes; anything but allow
// is 403 with upstream's wording, or 500 when an authorizer failed on the way (an error that no
// later authorizer's allow made moot). Each decision is counted by result
// (authorization_attempts_total, authorization_duration_seconds).
import { ApiError, forbidden, internalError } from "../../apimachinery/errors.js";
import type { UserInfo } from "../../apimachinery/user.js";
import { attributesFor } from "../../authz/attributes.js";
import type { Authorizer, AuthzResult } from "../../authz/authorizer.js";
import { requestInfoOf, userOf, type RequestContext } from "../../http/context.js";
import type { RequestInfo } from "../../http/request-info.js";
import type { AuthorizationFilterMetrics, AuthorizationResult } from "../../observability/authz-metrics.js";
import type { Filter, Handler } from "./filter.js";

export function authorizationFilter(authorizer: Authorizer, metrics?: AuthorizationFilterMetrics): Filter {
  // Not async: a decision made at once (system:masters, RBAC) hands the request on in the same
  // turn, with no promise or closure of this stage's own.
  return (ctx, next) => {
    try {
      const info = requestInfoOf(ctx);
      const user = userOf(ctx);
      const started = metrics ? performance.now() : 0;
      const decision = authorizer.authorize(attributesFor(user, info));
      if (decision instanceof Promise) return decision.then((d) => decided(ctx, next, d, user, info, started, metrics));
      return decided(ctx, next, decision, user, info, started, metrics);
    } catch (e) {
      return Promise.reject(e);
    }
  };
}

function decided(ctx: RequestContext, next: Handler, d: AuthzResult, user: UserInfo, info: RequestInfo, started: number, metrics: AuthorizationFilterMetrics | undefined): Promise<void> {
  metrics?.observe(resultOf(d), (performance.now() - started) / 1000);
  // Allowed even with an evaluation error (an authorizer may err and another still allow).
  if (d.decision === "allow") {
    annotate(ctx, "allow", d.reason);
    return next(ctx);
  }
  // Not allowed because an authorizer failed: upstream answers 500 with the error.
  if (d.error) {
    annotate(ctx, undefined, "internal error");
    return Promise.reject(internalError(new Error(d.error)));
  }
  annotate(ctx, "forbid", d.reason);
  return Promise.reject(forbiddenFor(user, info, d.reason));
}

/** Upstream's result label: an allow wins over an error; the union's default deny is no opinion. */
function resultOf(d: AuthzResult): AuthorizationResult {
  if (d.decision === "allow") return "allowed";
  if (d.error) return "error";
  return d.decision === "deny" && !d.defaultDeny ? "denied" : "no-opinion";
}

/** The audit annotations upstream's filter adds (authorization.k8s.io/decision and /reason). */
function annotate(ctx: RequestContext, decision: "allow" | "forbid" | undefined, reason: string): void {
  if (decision) ctx.annotate("authorization.k8s.io/decision", decision);
  ctx.annotate("authorization.k8s.io/reason", reason);
}

/** Upstream's 403: the message names resource/subresource; the Status details name the resource. */
export function forbiddenFor(user: UserInfo, info: RequestInfo, reason: string): ApiError {
  const suffix = reason ? `: ${reason}` : "";
  let what: string;
  if (!info.isResourceRequest) {
    what = `User "${user.name}" cannot ${info.verb} path "${info.path}"`;
  } else {
    const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
    const scope = info.namespace ? `in the namespace "${info.namespace}"` : "at the cluster scope";
    what = `User "${user.name}" cannot ${info.verb} resource "${resource}" in API group "${info.apiGroup}" ${scope}`;
  }
  const message = withoutHtml(what) + suffix;
  const e = info.isResourceRequest
    ? forbidden({ group: info.apiGroup, resource: info.resource }, info.name, message)
    : new ApiError(403, "Forbidden", `forbidden: ${message}`, {});
  return new ApiError(e.code, e.reason, e.message, e.details, { "x-content-type-options": "nosniff" });
}

/** Paths and names come from the client: never let them make the message look like HTML. */
function withoutHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
