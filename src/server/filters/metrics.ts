// Request metrics (apiserver_request_total, durations, in-flight and long-running gauges): begun
// once the request is parsed, finished with the status the client got when the stream closes —
// 401, 403, 429 and 504 answered by filters included.
import type { Exchange } from "../../http/exchange.js";
import { requestInfoOf } from "../../http/context.js";
import type { RequestInfo } from "../../http/request-info.js";
import type { RequestLabels, ServerMetrics } from "../../observability/metrics.js";
import type { Filter } from "./filter.js";

/** What a response that never got a status (the client went away first) counts as. */
const clientClosedRequest = 499;

export function metricsFilter(metrics: ServerMetrics): Filter {
  return (ctx, next) => {
    const ex = ctx.ex;
    let labels: RequestLabels;
    try {
      labels = metricLabels(requestInfoOf(ctx), ex);
    } catch (e) {
      return Promise.reject(e);
    }
    const done = metrics.begin(labels, ex.query.getAll("dryRun").includes("All"));
    ex.onClose(() => done(ex.status || clientClosedRequest));
    return next();
  };
}

const metricVerbs: Record<string, string> = { get: "GET", list: "LIST", watch: "WATCH", create: "POST", update: "PUT", patch: "PATCH", delete: "DELETE", deletecollection: "DELETECOLLECTION" };

/** Labels as kube-apiserver reports them (verb names, scope). */
export function metricLabels(info: RequestInfo, ex: Exchange): RequestLabels {
  if (!info.isResourceRequest) return { verb: ex.method.toUpperCase(), group: "", version: "", resource: "", subresource: "", scope: "" };
  let verb = metricVerbs[info.verb] ?? info.verb.toUpperCase();
  if (verb === "PATCH" && String(ex.headers["content-type"] ?? "").startsWith("application/apply-patch")) verb = "APPLY";
  const scope = info.name || info.verb === "create" ? "resource" : info.namespace ? "namespace" : "cluster";
  return { verb, group: info.apiGroup, version: info.apiVersion, resource: info.resource, subresource: info.subresource, scope };
}
