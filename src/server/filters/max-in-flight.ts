// Flow control as kube-apiserver's max-in-flight limit: at most --max-requests-inflight read-only
// requests (get, list) and --max-mutating-requests-inflight others at once; one more is answered
// 429 at once, not queued. Long-running requests (watch) are not counted, 0 means no limit, and
// system:masters is let through when the limit is reached (not counted either).
// With priority and fairness on (the default) these limits only size its seats (server/filters/
// priority-and-fairness.ts); this filter is the flow control of --enable-priority-and-fairness=false.
import { mastersGroup } from "../../apimachinery/user.js";
import { requestInfoOf } from "../../http/context.js";
import type { Exchange } from "../../http/exchange.js";
import { writeText } from "../../http/respond.js";
import type { ServerMetrics } from "../../observability/metrics.js";
import { readVsWriteFamily } from "../../observability/read-vs-write.js";
import type { LongRunningCheck } from "../long-running.js";
import { passThrough, type Filter } from "./filter.js";

export interface InFlightLimits {
  readOnly: number;
  mutating: number;
}

const readOnlyVerbs = new Set(["get", "list", "watch"]);

export function maxInFlightFilter(limits: InFlightLimits, isLongRunning: LongRunningCheck, metrics?: ServerMetrics): Filter {
  if (limits.readOnly === 0 && limits.mutating === 0) return passThrough;
  const inFlight: InFlightLimits = { readOnly: 0, mutating: 0 };
  // Upstream's max-in-flight feeds the executing phase of read_vs_write_current_requests: the
  // requests of each kind in flight, as a share of that kind's limit (noted as each starts and ends).
  const executing = metrics ? executingRatios(metrics, limits) : undefined;
  return async (ctx, next) => {
    const info = requestInfoOf(ctx);
    if (isLongRunning(info)) return next(ctx);
    // As upstream: a non-resource request's verb is its lowercased method, so HEAD counts as mutating.
    const kind: keyof InFlightLimits = readOnlyVerbs.has(info.verb) ? "readOnly" : "mutating";
    const limit = limits[kind];
    if (limit === 0) return next(ctx);
    if (inFlight[kind] >= limit) {
      if (ctx.user?.groups.includes(mastersGroup)) return next(ctx);
      ctx.terminatedWith = 429;
      tooManyRequests(ctx.ex);
      return;
    }
    inFlight[kind]++;
    executing?.[kind].set(inFlight[kind]);
    try {
      await next(ctx);
    } finally {
      inFlight[kind]--;
      executing?.[kind].set(inFlight[kind]);
    }
  };
}

function executingRatios(metrics: ServerMetrics, limits: InFlightLimits) {
  const family = readVsWriteFamily();
  metrics.register(family);
  const cells = { readOnly: family.with("executing", "readOnly"), mutating: family.with("executing", "mutating") };
  // A kind without a limit keeps the denominator 1, as upstream leaves it unset.
  for (const kind of ["readOnly", "mutating"] as const) if (limits[kind] > 0) cells[kind].setDenominator(limits[kind]);
  return cells;
}

/** Upstream answers in plain text, not a Status; client-go retries after Retry-After. */
export function tooManyRequests(ex: Exchange, retryAfterSeconds = 1): void {
  writeText(ex, 429, "Too many requests, please try again later.\n", { "retry-after": String(retryAfterSeconds) });
}
