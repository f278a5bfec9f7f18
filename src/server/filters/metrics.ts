// Request metrics (apiserver_request_total, durations, response sizes, in-flight and long-running
// gauges): begun once the request is parsed, finished with the status the client got when the
// stream closes — 401, 403, 429 and 504 answered by filters included.
import type { Exchange } from "../../http/exchange.js";
import { requestInfoOf, type LatencyTrackers, type RequestContext } from "../../http/context.js";
import type { RequestInfo } from "../../http/request-info.js";
import type { RequestLabels, RequestMetrics, RequestSeries } from "../../observability/request-metrics.js";
import { apiServerUser, type RequestPathMetrics } from "../../observability/request-path-metrics.js";
import type { LongRunningCheck } from "../long-running.js";
import type { Filter } from "./filter.js";

/** What a response that never got a status (the client went away first) counts as. */
const clientClosedRequest = 499;

export function metricsFilter(metrics: RequestMetrics, isLongRunning: LongRunningCheck, path?: RequestPathMetrics): Filter {
  return (ctx, next) => {
    const ex = ctx.ex;
    let series: RequestSeries;
    let info: RequestInfo;
    try {
      info = requestInfoOf(ctx);
      series = seriesOfRequest(metrics, info, ex);
    } catch (e) {
      return Promise.reject(e);
    }
    const longRunning = isLongRunning(info);
    const started = performance.now();
    metrics.started(series, longRunning, started);
    const closing = new ClosingMeasure(ctx);
    const { isResourceRequest, path: infoPath } = info;
    ex.onClose(() => {
      closing.done();
      metrics.finished(series, longRunning, ex.status || clientClosedRequest, (performance.now() - started) / 1000, closing.excluded, ex.bytesWritten);
      if (closing.terminatedWith !== undefined) metrics.terminated(series.labels, isResourceRequest ? undefined : infoPath, closing.terminatedWith);
      // Counted by the authenticated name, as upstream (its loopback client is this user).
      if (closing.selfRequest) path?.selfRequest(series.labels);
    });
    let handled: Promise<void>;
    try {
      handled = next(ctx);
    } catch (e) {
      handled = Promise.reject(e);
    }
    handled.then(closing.done, closing.done);
    return handled;
  };
}

/**
 * What the count at the stream's close reads of the request's context, taken when the chain is
 * done with it (or at the close, when that comes first): the stream closes later (once its last
 * frame is written), and a callback holding the context would keep the request's every object
 * alive until then, through the young generation's collections that fall in between (issue 26:
 * GET's survivors per scavenge).
 */
class ClosingMeasure {
  excluded = 0;
  terminatedWith: number | undefined = undefined;
  selfRequest = false;
  constructor(private ctx: RequestContext | undefined) {}
  readonly done = (): void => {
    const ctx = this.ctx;
    if (ctx === undefined) return;
    this.ctx = undefined;
    this.excluded = excludedSeconds(ctx.latency);
    this.terminatedWith = ctx.terminatedWith;
    this.selfRequest = ctx.user?.name === apiServerUser;
  };
}

/** The request's series, found from its labels' values (metricLabels() without the object). */
function seriesOfRequest(metrics: RequestMetrics, info: RequestInfo, ex: Exchange): RequestSeries {
  const dryRun = dryRunLabel(ex);
  if (!info.isResourceRequest) return metrics.seriesFor(nonResourceVerb(ex), "", "", "", "", "", dryRun, "");
  return metrics.seriesFor(resourceVerb(info, ex), info.apiGroup, info.apiVersion, info.resource, info.subresource, scopeOf(info), dryRun, "apiserver");
}

/** What the SLI leaves out: webhook calls and flow-control queueing. */
function excludedSeconds(l: LatencyTrackers | undefined): number {
  return l ? l.mutatingWebhookSeconds + l.validatingWebhookSeconds + l.apfQueueWaitSeconds : 0;
}

const metricVerbs: Record<string, string> = { get: "GET", list: "LIST", watch: "WATCH", create: "POST", update: "PUT", patch: "PATCH", delete: "DELETE", deletecollection: "DELETECOLLECTION", proxy: "PROXY" };
/** The verbs upstream reports; any other is "other" (cleanVerb), so that no method grows the label set. */
const reportedVerbs = new Set(["APPLY", "CONNECT", "CREATE", "DELETE", "DELETECOLLECTION", "GET", "LIST", "PATCH", "POST", "PROXY", "PUT", "UPDATE", "WATCH", "WATCHLIST"]);
/** Subresources upstream reports as CONNECT. */
const connectSubresources = new Set(["log", "exec", "portforward", "attach", "proxy"]);
const noLabels = { group: "", version: "", resource: "", subresource: "", scope: "" };

/** Labels as kube-apiserver reports them (verb names, scope). */
export function metricLabels(info: RequestInfo, ex: Exchange): RequestLabels {
  if (!info.isResourceRequest) return { verb: nonResourceVerb(ex), ...noLabels };
  return { verb: resourceVerb(info, ex), group: info.apiGroup, version: info.apiVersion, resource: info.resource, subresource: info.subresource, scope: scopeOf(info) };
}

function nonResourceVerb(ex: Exchange): string {
  const method = ex.method.toUpperCase();
  return method === "HEAD" ? "GET" : reportedVerbs.has(method) ? method : "other";
}

function resourceVerb(info: RequestInfo, ex: Exchange): string {
  let verb = metricVerbs[info.verb] ?? info.verb.toUpperCase();
  if (verb === "PATCH" && String(ex.headers["content-type"] ?? "").startsWith("application/apply-patch")) verb = "APPLY";
  if (connectSubresources.has(info.subresource)) verb = "CONNECT";
  return reportedVerbs.has(verb) ? verb : "other";
}

function scopeOf(info: RequestInfo): string {
  return info.name || info.verb === "create" ? "resource" : info.namespace ? "namespace" : "cluster";
}

/** The dry_run label: "" without the parameter, else its values sorted and deduplicated, or "invalid" (upstream's cleanDryRun). */
export function dryRunLabel(ex: Exchange): string {
  const values = ex.query.getAll("dryRun");
  if (values.length === 0) return "";
  if (values.some((v) => v !== "All")) return "invalid";
  return "All";
}
