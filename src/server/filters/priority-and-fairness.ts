// Flow control by API Priority and Fairness (upstream: server/filters/priority-and-fairness.go,
// release 1.34), in the place of max-in-flight: each request is classified by the FlowSchemas
// into a priority level and a flow, waits its turn in the level's queues when the level's seats
// are taken, and is answered 429 with Retry-After when its queue is full or its wait outlasts a
// quarter of its deadline (at most a minute). Every answer says where the request was
// classified (X-Kubernetes-PF-FlowSchema-UID, X-Kubernetes-PF-PriorityLevel-UID). A watch holds
// its seat only until its initial events are sent; other long-running requests (exec, proxy,
// logs) are not counted.
import { latencyTrackers, requestInfoOf, userOf, type RequestContext } from "../../http/context.js";
import type { Dispatcher, PriorityLevelState } from "../../controllers/flowcontrol/dispatcher.js";
import type { DroppedRequestsTracker } from "../../controllers/flowcontrol/dropped-requests.js";
import { gaugeTimeOf, type Request } from "../../controllers/flowcontrol/queueset.js";
import type { WatchTracker } from "../../controllers/flowcontrol/watch-tracker.js";
import { maxSeats } from "../../controllers/flowcontrol/work-estimate.js";
import type { WorkEstimator } from "../../controllers/flowcontrol/work-estimator.js";
import type { FlowControlMetrics, FlowSeries } from "../../observability/flowcontrol-metrics.js";
import type { HistogramCell } from "../../observability/metric-family.js";
import type { TimingRatioCell } from "../../observability/timing-ratio-histogram.js";
import type { LongRunningCheck } from "../long-running.js";
import type { Filter } from "./filter.js";
import { tooManyRequests } from "./max-in-flight.js";

export const flowSchemaUIDHeader = "x-kubernetes-pf-flowschema-uid";
export const priorityLevelUIDHeader = "x-kubernetes-pf-prioritylevel-uid";
/** No request waits in a queue longer than this. */
const maxWaitMs = 60_000;

export interface PriorityAndFairnessOptions {
  dispatcher: Dispatcher;
  estimate: WorkEstimator;
  watches: WatchTracker;
  dropped: DroppedRequestsTracker;
  metrics: FlowControlMetrics;
  isLongRunning: LongRunningCheck;
  /** --request-timeout in ms: a request without a deadline (a watch) waits a quarter of it at most. */
  requestTimeoutMs: number;
}

export function priorityAndFairnessFilter(o: PriorityAndFairnessOptions): Filter {
  const { dispatcher, metrics } = o;
  // A FlowSchema object names one priority level: its metrics cells are found once.
  const seriesOf = new WeakMap<object, FlowSeries>();
  // The server's read-only and mutating requests waiting and executing (read_vs_write_current_requests).
  const { executing } = metrics.requestKinds;
  const queueNotes = {
    readOnly: (inQueue: boolean) => metrics.queued("readOnly", inQueue),
    mutating: (inQueue: boolean) => metrics.queued("mutating", inQueue),
  };
  return async (ctx, next) => {
    const info = requestInfoOf(ctx);
    const user = userOf(ctx);
    const isWatch = info.verb === "watch";
    if (!isWatch && o.isLongRunning(info)) return next(ctx);
    const c = dispatcher.classify(info, user);
    const plName = c.pl.metadata.name;
    const fsName = c.fs.metadata.name;
    let series = seriesOf.get(c.fs);
    if (!series) seriesOf.set(c.fs, (series = metrics.series(plName, fsName)));
    const we = o.estimate(info, ctx.ex.query, plName);
    series.workEstimatedSeats.observe(maxSeats(we));
    if (we.watchCount !== undefined) series.watchCount.observe(we.watchCount);
    ctx.ex.setResponseHeader(priorityLevelUIDHeader, c.pl.metadata.uid ?? "");
    ctx.ex.setResponseHeader(flowSchemaUIDHeader, c.fs.metadata.uid ?? "");
    // Only a limited level's requests are timed waiting (an exempt one never waits).
    const exempt = c.pl.spec.type === "Exempt";
    const waitStart = exempt ? 0 : dispatcher.clock.now();
    // As upstream: what is not get, list or watch is mutating.
    const kind = info.verb === "get" || info.verb === "list" || isWatch ? "readOnly" : "mutating";
    const req = dispatcher.start(c, we, series, { user, info }, queueNotes[kind]);
    const queued = req !== undefined && req.decision !== "execute";
    const executed = req ? !queued || (await waitTurn(ctx, req, o.requestTimeoutMs)) : false;
    // Every request of a limited level is counted as having waited, if only for no time at all.
    if (!exempt) {
      const waited = (dispatcher.clock.now() - waitStart) / 1000;
      (executed ? series.waitExecuted : series.waitRejected).observe(waited);
      // Time queued is left out of the request's latency SLI (upstream's APF queue-wait tracker).
      if (queued) latencyTrackers(ctx).apfQueueWaitSeconds += waited;
    }
    if (!req || !executed) {
      o.dropped.recordDropped(plName);
      // Upstream counts every rejection as a termination, the client gone or not.
      ctx.terminatedWith = 429;
      if (!ctx.ex.closed) tooManyRequests(ctx.ex, o.dropped.retryAfter(plName));
      return;
    }
    req.qs.noteDispatched();
    series.dispatched.inc();
    // A request dispatched at once started when its level took it (the clock's reading then).
    const { clock } = dispatcher;
    const started = queued ? clock.now() : req.startTime;
    executing[kind].add(1, gaugeTimeOf(clock, started));
    if (!isWatch) {
      try {
        await next(ctx);
      } finally {
        endExecution(dispatcher, c.state, req, executing[kind], series.executionRegular, started);
      }
      return;
    }
    // A watch holds its seat until it is initialized (or ended before); it then goes on unmetered.
    const forget = o.watches.register(info, ctx.ex.query.get("fieldSelector"));
    let release!: () => void;
    const initialized = new Promise<void>((r) => (release = r));
    ctx.watchInitialized = release;
    let handling: Promise<void>;
    try {
      handling = next(ctx);
    } catch (e) {
      handling = Promise.reject(e);
    }
    const settled = handling.then(
      () => undefined,
      () => undefined,
    );
    await Promise.race([initialized, settled]);
    ctx.watchInitialized = undefined;
    endExecution(dispatcher, c.state, req, executing[kind], series.executionWatch, started);
    try {
      await handling;
    } finally {
      forget?.();
    }
  };
}

/** A request stops executing: counted, timed, and its seats go back, all at one reading of the clock. */
function endExecution(dispatcher: Dispatcher, state: PriorityLevelState, req: Request, executing: TimingRatioCell, execution: HistogramCell, started: number): void {
  const { clock } = dispatcher;
  const ended = clock.now();
  executing.add(-1, gaugeTimeOf(clock, ended));
  execution.observe((ended - started) / 1000);
  dispatcher.finished(state, req, ended);
}

/**
 * Waits for the request's dispatch: true once it may execute, false when its wait limit passed or
 * its client left first (then it has left its queue). The wait limit comes before the request's
 * deadline, so only the stream's close is watched, not the request's signal (which costs an
 * AbortController per request).
 */
async function waitTurn(ctx: RequestContext, req: Request, requestTimeoutMs: number): Promise<boolean> {
  const limit = Math.min(maxWaitMs, ctx.deadline !== undefined ? (ctx.deadline - ctx.receivedAt) / 4 : requestTimeoutMs / 4);
  const timer = setTimeout(() => req.cancel(), Math.max(0, ctx.receivedAt + limit - Date.now()));
  if (ctx.ex.closed) req.cancel();
  else ctx.ex.onClose(() => req.cancel());
  const executed = await req.wait();
  clearTimeout(timer);
  return executed;
}
