import { describe, expect, it } from "vitest";
import { latencyTrackers } from "../../http/context.js";
import { recordingContext } from "../../http/recording-exchange.testkit.js";
import { RequestMetrics } from "../../observability/request-metrics.js";
import { isLongRunning } from "../long-running.js";
import { metricLabels, metricsFilter } from "./metrics.js";

/** The text lines of `family` (samples only). */
const lines = (m: RequestMetrics, family: "total" | "duration" | "sli" | "responseSizes" | "longRunning" | "inflight") =>
  m[family]
    .render()
    .split("\n")
    .filter((l) => l && !l.startsWith("#"));

describe("metrics filter", () => {
  it("counts the request with the status sent, once the stream closes", async () => {
    const m = new RequestMetrics();
    const { ctx, rec } = recordingContext({ method: "POST", path: "/api/v1/namespaces/ns1/pods", query: "dryRun=All" });
    await metricsFilter(m, isLongRunning)(ctx, async () => ctx.ex.head(201, {}));
    expect(lines(m, "total")).toEqual([]);
    rec.close();
    expect(lines(m, "total")).toEqual(['apiserver_request_total{code="201",component="apiserver",dry_run="All",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1"} 1']);
    expect(lines(m, "duration")).toContain('apiserver_request_duration_seconds_count{component="apiserver",dry_run="All",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1"} 1');
    // Only reads have response sizes.
    expect(lines(m, "responseSizes")).toEqual([]);
  });

  it("counts a request the client left before any status as 499", async () => {
    const m = new RequestMetrics();
    const { ctx, rec } = recordingContext({ path: "/api/v1/pods" });
    await metricsFilter(m, isLongRunning)(ctx, async () => undefined);
    rec.close();
    expect(lines(m, "total")[0]).toMatch(/code="499".*dry_run="".*verb="LIST"/);
  });

  it("reads a stream closed before the chain ended once, and the context is let go when the chain ends", async () => {
    const m = new RequestMetrics();
    const { ctx, rec } = recordingContext({ path: "/api/v1/namespaces/a/pods/p" });
    let finishChain!: () => void;
    const handled = metricsFilter(m, isLongRunning)(ctx, () => new Promise<void>((r) => (finishChain = r)));
    ctx.terminatedWith = 504;
    rec.close(); // the client left while the handler still runs: counted now, with what the context says
    finishChain();
    await handled;
    await new Promise((r) => setImmediate(r));
    expect(lines(m, "total")).toEqual(['apiserver_request_total{code="499",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="GET",version="v1"} 1']);
  });

  it("counts what the chain left in the context when it ended, not later changes", async () => {
    const m = new RequestMetrics();
    const { ctx, rec } = recordingContext({ path: "/api/v1/namespaces/a/pods/p" });
    await metricsFilter(m, isLongRunning)(ctx, async () => {
      ctx.ex.head(200, {});
      latencyTrackers(ctx).mutatingWebhookSeconds = 3600;
    });
    await new Promise((r) => setImmediate(r));
    latencyTrackers(ctx).mutatingWebhookSeconds = 0; // after the chain: not seen
    rec.close();
    // The hour of webhook time the chain recorded is left out of the SLI: its sum goes below zero.
    expect(lines(m, "sli").find((l) => l.includes("_sum"))).toMatch(/ -\d/);
  });

  it("records the body size of reads, and leaves webhook time out of the SLI", async () => {
    const m = new RequestMetrics();
    const { ctx, rec } = recordingContext({ path: "/api/v1/namespaces/a/pods/p" });
    await metricsFilter(m, isLongRunning)(ctx, async () => {
      ctx.ex.head(200, {});
      ctx.ex.end(Buffer.alloc(1500));
      // As if webhooks had taken an hour: the SLI observation goes below zero, the duration does not.
      latencyTrackers(ctx).mutatingWebhookSeconds = 3600;
    });
    rec.close();
    expect(lines(m, "responseSizes")).toContain('apiserver_response_sizes_bucket{component="apiserver",group="",resource="pods",scope="resource",subresource="",verb="GET",version="v1",le="1000"} 0');
    expect(lines(m, "responseSizes")).toContain('apiserver_response_sizes_bucket{component="apiserver",group="",resource="pods",scope="resource",subresource="",verb="GET",version="v1",le="10000"} 1');
    expect(lines(m, "sli").find((l) => l.includes('le="0.05"'))).toMatch(/ 1$/);
    expect(lines(m, "duration").find((l) => l.includes("_sum"))).toMatch(/ 0\.\d+$|e-\d+$/);
  });

  it("counts a watch as long-running while it is open, not in flight", async () => {
    const m = new RequestMetrics();
    const { ctx, rec } = recordingContext({ path: "/api/v1/pods", query: "watch=true" });
    await metricsFilter(m, isLongRunning)(ctx, async () => ctx.ex.head(200, {}));
    expect(lines(m, "longRunning")).toEqual(['apiserver_longrunning_requests{component="apiserver",group="",resource="pods",scope="cluster",subresource="",verb="WATCH",version="v1"} 1']);
    await m.inflight.collect!();
    expect(lines(m, "inflight")).toEqual(['apiserver_current_inflight_requests{request_kind="mutating"} 0', 'apiserver_current_inflight_requests{request_kind="readOnly"} 0']);
    rec.close();
    expect(lines(m, "longRunning")[0]).toMatch(/ 0$/);
    expect(lines(m, "total")[0]).toMatch(/code="200".*verb="WATCH"/);
  });

  it("reports the most requests in flight in the last second", async () => {
    const m = new RequestMetrics();
    const open = [0, 1, 2].map(() => recordingContext({ method: "PUT", path: "/api/v1/namespaces/a/configmaps/c" }));
    for (const { ctx } of open) await metricsFilter(m, isLongRunning)(ctx, async () => undefined);
    for (const { rec } of open) rec.close();
    await m.inflight.collect!();
    expect(lines(m, "inflight")).toContain('apiserver_current_inflight_requests{request_kind="mutating"} 3');
  });

  it("labels as kube-apiserver does", () => {
    const labels = (method: string, path: string, query = "", headers = {}) => {
      const { ctx } = recordingContext({ method, path, query, headers });
      return metricLabels(ctx.info!, ctx.ex);
    };
    expect(labels("GET", "/api/v1/pods")).toMatchObject({ verb: "LIST", scope: "cluster" });
    expect(labels("GET", "/api/v1/namespaces/a/pods", "watch=1")).toMatchObject({ verb: "WATCH", scope: "namespace" });
    expect(labels("PATCH", "/apis/apps/v1/namespaces/a/deployments/d/scale", "", { "content-type": "application/apply-patch+yaml" })).toMatchObject({ verb: "APPLY", group: "apps", subresource: "scale", scope: "resource" });
    expect(labels("GET", "/api/v1/namespaces/a/pods/p/log")).toMatchObject({ verb: "CONNECT", subresource: "log" });
    expect(labels("GET", "/healthz")).toEqual({ verb: "GET", group: "", version: "", resource: "", subresource: "", scope: "" });
    expect(labels("HEAD", "/healthz").verb).toBe("GET");
    expect(labels("OPTIONS", "/version").verb).toBe("other");
  });

  it("labels dry runs as upstream's cleanDryRun", async () => {
    const m = new RequestMetrics();
    for (const query of ["dryRun=All&dryRun=All", "dryRun=bogus"]) {
      const { ctx, rec } = recordingContext({ method: "DELETE", path: "/api/v1/namespaces/a/pods/p", query });
      await metricsFilter(m, isLongRunning)(ctx, async () => ctx.ex.head(200, {}));
      rec.close();
    }
    expect(lines(m, "total").map((l) => /dry_run="([^"]*)"/.exec(l)![1])).toEqual(["All", "invalid"]);
  });
});
