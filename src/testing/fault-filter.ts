// Fault injection's seam in the request path: just before the router, so a fault meets a request
// already authenticated, authorized and counted, and the client sees it as the server's own answer
// (errors become Statuses in the recovery filter; watch faults act on the open stream).
import { setTimeout as sleep } from "node:timers/promises";
import type { RequestContext } from "../http/context.js";
import { chainTaps, type WatchEnding, type WatchTap } from "../http/watch-tap.js";
import type { RequestInfo } from "../http/request-info.js";
import type { Filter, Handler } from "../server/filters/filter.js";
import { requestTimeoutError } from "../server/filters/deadline.js";
import { faultError, tooOld } from "./fault-errors.js";
import type { FaultAction, FaultInjector, FiredFault } from "./faults.js";
import { HeldExchange } from "./held-exchange.js";
import type { RequestFacts } from "./request-matcher.js";

/** What the filter reads of the server it runs in (attached once the server is up). */
export interface FaultEnvironment {
  kindOf(info: RequestInfo): string | undefined;
  currentRevision(): Promise<number>;
}

export function faultFilter(faults: FaultInjector, env: () => FaultEnvironment): Filter {
  return (ctx, next) => {
    const info = ctx.info;
    if (faults.size === 0 || !info?.isResourceRequest) return next(ctx);
    const fired = faults.take(factsOf(ctx, info));
    if (!fired) return next(ctx);
    ctx.fault = fired;
    return inject(fired, ctx, info, next, env());
  };
}

export function factsOf(ctx: RequestContext, info: RequestInfo): RequestFacts {
  return {
    verb: info.verb,
    apiGroup: info.apiGroup,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
    user: ctx.user?.name ?? "",
    fieldManager: ctx.ex.query.get("fieldManager") ?? "",
  };
}

async function inject(fired: FiredFault, ctx: RequestContext, info: RequestInfo, next: Handler, env: FaultEnvironment): Promise<void> {
  const a = fired.action;
  const requested = ctx.ex.query.get("resourceVersion") ?? "";
  switch (a.kind) {
    case "error": {
      const err = faultError(a, { info, kind: env.kindOf(info) ?? info.resource, requestedRevision: requested, currentRevision: a.code === 410 ? await env.currentRevision() : 0 });
      if (info.verb !== "watch" || a.code !== 410) throw err;
      // A watch learns of its expiry inside the stream it opened, as from the watch cache.
      ctx.watchTap = chainTaps(ctx.watchTap, { begin: () => ({ end: "error", status: err, bookmark: false }), sent: () => undefined });
      return next(ctx);
    }
    case "latency":
      await sleep(a.ms, undefined, { signal: ctx.signal }).catch(() => {
        throw ctx.signal.reason;
      });
      return next(ctx);
    case "dropWatch":
    case "expireWatch": {
      const current = a.kind === "expireWatch" ? await env.currentRevision() : 0;
      ctx.watchTap = chainTaps(ctx.watchTap, endAfter(a, () => ({ end: "error", status: tooOld(undefined, requested, current), bookmark: true })));
      return next(ctx);
    }
    case "timeoutAfterCommit":
      return answerTimeoutAfterCommit(ctx, next);
  }
}

/** Ends the watch after `afterEvents` object events (bookmarks do not count). */
function endAfter(a: Extract<FaultAction, { kind: "dropWatch" | "expireWatch" }>, expiry: () => WatchEnding): WatchTap {
  const after = a.afterEvents ?? 0;
  let seen = 0;
  let done = false;
  const ending = (): WatchEnding | undefined => {
    if (done || seen < after) return undefined;
    done = true;
    return a.kind === "dropWatch" ? { end: "drop" } : expiry();
  };
  return {
    begin: ending,
    sent(e) {
      if (e.type === "ADDED" || e.type === "MODIFIED" || e.type === "DELETED") seen++;
      return ending();
    },
  };
}

/** The write runs to its end; a success is answered 504 Timeout, a failure as it is. */
async function answerTimeoutAfterCommit(ctx: RequestContext, next: Handler): Promise<void> {
  const real = ctx.ex;
  const held = new HeldExchange(real);
  ctx.ex = held;
  const fired = ctx.fault as FiredFault;
  try {
    await next(ctx);
  } catch (e) {
    fired.outcome = "not applied: the write failed, answered as it was";
    throw e;
  } finally {
    ctx.ex = real;
  }
  if (held.status >= 200 && held.status < 300) throw requestTimeoutError();
  fired.outcome = `not applied: the write was answered ${held.status}, sent as it was`;
  held.release();
}
