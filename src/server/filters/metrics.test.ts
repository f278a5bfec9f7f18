import { describe, expect, it } from "vitest";
import { recordingContext } from "../../http/recording-exchange.testkit.js";
import type { RequestLabels, ServerMetrics } from "../../observability/metrics.js";
import { metricLabels, metricsFilter } from "./metrics.js";

function fakeMetrics() {
  const seen: { labels: RequestLabels; dryRun: boolean; code?: number }[] = [];
  const metrics = {
    begin(labels: RequestLabels, dryRun: boolean) {
      const entry: (typeof seen)[number] = { labels, dryRun };
      seen.push(entry);
      return (code: number) => (entry.code = code);
    },
  } as unknown as ServerMetrics;
  return { metrics, seen };
}

describe("metrics filter", () => {
  it("counts the request with the status sent, once the stream closes", async () => {
    const { metrics, seen } = fakeMetrics();
    const { ctx, rec } = recordingContext({ method: "POST", path: "/api/v1/namespaces/ns1/pods", query: "dryRun=All" });
    await metricsFilter(metrics)(ctx, async () => ctx.ex.head(201, {}));
    expect(seen[0]!.code).toBeUndefined();
    rec.close();
    expect(seen).toEqual([{ labels: { verb: "POST", group: "", version: "v1", resource: "pods", subresource: "", scope: "resource" }, dryRun: true, code: 201 }]);
  });

  it("counts a request the client left before any status as 499", async () => {
    const { metrics, seen } = fakeMetrics();
    const { ctx, rec } = recordingContext({ path: "/api/v1/pods" });
    await metricsFilter(metrics)(ctx, async () => undefined);
    rec.close();
    expect(seen[0]!.code).toBe(499);
    expect(seen[0]!.dryRun).toBe(false);
  });

  it("labels as kube-apiserver does", () => {
    const labels = (method: string, path: string, query = "", headers = {}) => {
      const { ctx } = recordingContext({ method, path, query, headers });
      return metricLabels(ctx.info!, ctx.ex);
    };
    expect(labels("GET", "/api/v1/pods")).toMatchObject({ verb: "LIST", scope: "cluster" });
    expect(labels("GET", "/api/v1/namespaces/a/pods", "watch=1")).toMatchObject({ verb: "WATCH", scope: "namespace" });
    expect(labels("PATCH", "/apis/apps/v1/namespaces/a/deployments/d/scale", "", { "content-type": "application/apply-patch+yaml" })).toMatchObject({ verb: "APPLY", group: "apps", subresource: "scale", scope: "resource" });
    expect(labels("GET", "/healthz")).toEqual({ verb: "GET", group: "", version: "", resource: "", subresource: "", scope: "" });
  });
});
