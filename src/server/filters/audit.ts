// The audit stage, in upstream's two parts. The first (WithAuditInit), ahead of every other
// stage, gives the request its Audit-Id — the client's own Audit-ID header, else a new UUID —
// sent back on every response, and, when the server audits, makes its event and puts the
// exchange in front of the response that records the response's status and body and writes the
// final stage before the response is finished. The second (WithAudit), after authentication so
// the event names who asked and before impersonation and authorization so refusals there are
// recorded too, asks the policy for the request's level and records RequestReceived; a failure
// nothing answered is recorded as the Panic stage. A request refused before it (401, a bad
// timeout) gets one ResponseStarted event, as upstream's failed-request handlers give it.
import { newUUID } from "../../apimachinery/uuid.js";
import { ApiError, internalError } from "../../apimachinery/errors.js";
import type { UserInfo } from "../../apimachinery/user.js";
import { AuditedExchange, type ResponseObserver } from "../../http/audited-exchange.js";
import type { RequestContext } from "../../http/context.js";
import { header } from "../../http/exchange.js";
import type { RequestInfo } from "../../http/request-info.js";
import { sourceIPs } from "../../http/source-ips.js";
import type { Auditing } from "../../observability/audit/auditing.js";
import { microNow } from "../../observability/audit/micro-time.js";
import type { ResponseBody } from "../../observability/audit/event-bodies.js";
import { RequestAudit, type RequestMetadata } from "../../observability/audit/request-audit.js";
import type { EventUser } from "../../observability/audit/types.js";
import type { LongRunningCheck } from "../long-running.js";
import type { Filter, Handler } from "./filter.js";

/** Upstream's header name, as HTTP/2 writes it. */
export const auditIdHeader = "audit-id";

export function auditInitFilter(a: Auditing | undefined): Filter {
  return (ctx, next) => {
    const id = header(ctx.ex.headers, auditIdHeader) || newUUID();
    // Set before anything is written: every answer carries it, errors of the stages after included.
    ctx.ex.setResponseHeader(auditIdHeader, id, true);
    if (!a) return next(ctx);
    const ra = new RequestAudit(id, microNow(), a.sink);
    ctx.audit = ra;
    ctx.ex = new AuditedExchange(ctx.ex, new ResponseAudit(ctx, ra, a));
    return next(ctx);
  };
}

/** What the response tells the request's event (a class: one is made per audited request). */
class ResponseAudit implements ResponseObserver {
  constructor(
    private readonly ctx: RequestContext,
    private readonly ra: RequestAudit,
    private readonly a: Auditing,
  ) {}

  started(status: number): boolean | Promise<unknown> {
    if (this.ra.pending) {
      // Refused before the audit stage. Upstream audits the refusals of authentication (401) and
      // of a bad `timeout` (400), not those of shutdown or rebalancing: the policy decides now.
      if (status !== 401 && status !== 400) {
        this.ra.drop();
        return false;
      }
      decide(this.ctx, this.ra, this.a);
      void this.ra.refusedEarly(status);
      return false;
    }
    const r = this.ra.responseStarted(status);
    // A long-running response's head waits for its ResponseStarted event when the backend must be
    // waited for (upstream processes the stage in WriteHeader, before the head goes out); one that
    // ends soon goes out whole once its ResponseComplete event is written.
    if (this.ra.longRunning) return typeof r === "boolean" ? false : r;
    return this.ra.recording;
  }

  body(body: ResponseBody): void {
    this.ra.response(body);
  }

  finishing(): boolean | Promise<boolean> {
    return this.ra.complete();
  }
}

export interface AuditFilterOptions {
  isLongRunning: LongRunningCheck;
  /** The recovery filter's conversion: a thrown value it can only make a 500 of is a panic. */
  toApiError: (thrown: unknown) => ApiError;
}

export function auditFilter(a: Auditing, o: AuditFilterOptions): Filter {
  return (ctx, next) => {
    const ra = ctx.audit;
    if (!(ra instanceof RequestAudit)) return next(ctx);
    decide(ctx, ra, a);
    if (!ra.recording) return next(ctx);
    ra.longRunning = ctx.info !== undefined && o.isLongRunning(ctx.info);
    const stored = ra.received();
    if (stored === true) return served(ctx, ra, next, o.toApiError);
    if (stored === false) return rejected(ra, a);
    return stored.then((ok) => (ok ? served(ctx, ra, next, o.toApiError) : rejected(ra, a)));
  };
}

/**
 * The rest of the chain, then: a failure nothing answered is the Panic stage; a request that
 * ended without a response being finished (the client went away) gets its ResponseComplete now
 * (one that was finished has it already). An error is answered by recovery, whose response's
 * end records it.
 */
async function served(ctx: RequestContext, ra: RequestAudit, next: Handler, toApiError: (thrown: unknown) => ApiError): Promise<void> {
  try {
    await next(ctx);
  } catch (e) {
    if (isPanic(e, toApiError)) ra.panic(e instanceof Error ? e.message : String(e));
    throw e;
  }
  void ra.complete();
}

function rejected(ra: RequestAudit, a: Auditing): Promise<never> {
  a.metrics.requestRejected();
  ra.drop();
  return Promise.reject(internalError(new Error("failed to store audit event")));
}

function isPanic(e: unknown, toApiError: (thrown: unknown) => ApiError): boolean {
  if (e instanceof ApiError) return false;
  const api = toApiError(e);
  return api.code === 500 && (api as { cause?: unknown }).cause === e;
}

/** The policy's decision for the request, from its user (if known yet) and request info. */
function decide(ctx: RequestContext, ra: RequestAudit, a: Auditing): void {
  const info = ctx.info;
  const config = info
    ? a.policy.evaluate(ctx.user, info)
    : a.policy.evaluate(ctx.user, { verb: ctx.ex.method.toLowerCase(), isResourceRequest: false, path: ctx.ex.path, namespace: "", apiGroup: "", resource: "", subresource: "", name: "" });
  a.metrics.level(config.level);
  ra.init(config, config.level === "None" ? noMetadata : requestMetadata(ctx, info, ctx.user));
}

const noMetadata: RequestMetadata = { requestURI: "", verb: "", sourceIPs: [], userAgent: "" };

const maxUserAgentLength = 1024;

function requestMetadata(ctx: RequestContext, info: RequestInfo | undefined, user: UserInfo | undefined): RequestMetadata {
  const ex = ctx.ex;
  const ua = header(ex.headers, "user-agent") ?? "";
  const meta: RequestMetadata = {
    // The target as it arrived; rebuilt only for an exchange that does not keep it (parsing and
    // printing the query costs more than the rest of the event).
    requestURI: ex.url ?? pathAndQuery(ex.path, ex.query),
    verb: info?.verb ?? ex.method.toLowerCase(),
    sourceIPs: sourceIPs(ex),
    userAgent: ua.length > maxUserAgentLength ? ua.slice(0, maxUserAgentLength) + "...TRUNCATED" : ua,
  };
  if (user) meta.user = eventUser(user);
  if (info?.isResourceRequest) {
    meta.objectRef = { resource: info.resource, namespace: info.namespace, name: info.name, apiGroup: info.apiGroup, apiVersion: info.apiVersion, subresource: info.subresource };
  }
  return meta;
}

function pathAndQuery(path: string, query: URLSearchParams): string {
  const q = query.toString();
  return q ? `${path}?${q}` : path;
}

export function eventUser(u: UserInfo): EventUser {
  const out: EventUser = { username: u.name, groups: u.groups };
  if (u.uid) out.uid = u.uid;
  if (u.extra) out.extra = u.extra;
  return out;
}
