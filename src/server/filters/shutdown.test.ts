import { describe, expect, it, vi } from "vitest";
import { recordingContext } from "../../http/recording-exchange.testkit.js";
import { isLongRunning } from "../long-running.js";
import { exemptFromShutdown, shutdownFilter } from "./shutdown.js";

const filter = (draining: boolean, sendRetryAfter: boolean) => shutdownFilter({ draining: () => draining, sendRetryAfter, isLongRunning });

describe("shutdown filter", () => {
  it("hands every request on while the server serves", async () => {
    const { ctx, rec } = recordingContext({ path: "/api/v1/pods" });
    const next = vi.fn(async () => undefined);
    await filter(false, true)(ctx, next);
    expect(next).toHaveBeenCalledOnce();
    expect(rec.status).toBe(0);
  });

  it("with --shutdown-send-retry-after answers 429 in plain text with Retry-After: 5 and closes the connection, watches included", async () => {
    for (const query of ["", "watch=true"]) {
      const { ctx, rec } = recordingContext({ path: "/api/v1/namespaces/a/pods", query });
      const next = vi.fn(async () => undefined);
      await filter(true, true)(ctx, next);
      expect(next).not.toHaveBeenCalled();
      expect(rec.status).toBe(429);
      expect(rec.headers["retry-after"]).toBe("5");
      expect(rec.headers["content-type"]).toBe("text/plain; charset=utf-8");
      expect(rec.body()).toBe("The apiserver is shutting down, please try again later.\n");
      expect(rec.connectionClosed).toBe(true);
    }
  });

  it("without it answers a request that is not long-running 503 with a ServiceUnavailable Status and Retry-After: 1, and lets watches pass", async () => {
    const { ctx, rec } = recordingContext({ method: "POST", path: "/api/v1/namespaces/a/configmaps" });
    await filter(true, false)(ctx, async () => undefined);
    expect(rec.status).toBe(503);
    expect(rec.headers["retry-after"]).toBe("1");
    expect(rec.headers["content-type"]).toBe("application/json");
    expect(rec.body()).toBe('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"apiserver is shutting down","reason":"ServiceUnavailable","code":503}\n');
    const watch = recordingContext({ path: "/api/v1/namespaces/a/pods", query: "watch=true" });
    const next = vi.fn(async () => undefined);
    await filter(true, false)(watch.ctx, next);
    expect(next).toHaveBeenCalledOnce();
  });

  it("always serves health probes, metrics scrapes and the server's loopback client", async () => {
    for (const path of ["/readyz", "/livez/ping", "/healthz", "/metrics", "/metrics/slis"]) {
      const { ctx } = recordingContext({ path });
      const next = vi.fn(async () => undefined);
      await filter(true, true)(ctx, next);
      expect(next, path).toHaveBeenCalledOnce();
    }
    expect(exemptFromShutdown("/api/v1/pods", "kube-apiserver/v1.34.0 (linux/amd64) kubernetes/abc")).toBe(true);
    expect(exemptFromShutdown("/api/v1/pods", "kubectl/v1.34.0")).toBe(false);
    expect(exemptFromShutdown("/version", undefined)).toBe(false);
  });
});
