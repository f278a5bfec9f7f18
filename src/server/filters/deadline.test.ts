import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../../apimachinery/errors.js";
import { recordingContext } from "../../http/recording-exchange.testkit.js";
import { RequestPathMetrics } from "../../observability/request-path-metrics.js";
import { isLongRunning } from "../long-running.js";
import { allottedTime, deadlineFilter, requestTimeoutError, writeUpperBoundMs } from "./deadline.js";

const filter = (requestTimeoutMs: number) => deadlineFilter({ requestTimeoutMs, isLongRunning });

describe("deadline filter", () => {
  it("sets the deadline --request-timeout after arrival and lets a prompt request finish", async () => {
    const { ctx, rec } = recordingContext({ path: "/api/v1/pods" });
    await filter(60_000)(ctx, async () => {
      ctx.ex.head(200, {});
      ctx.ex.end("ok");
    });
    expect(ctx.deadline).toBe(ctx.receivedAt + 60_000);
    expect(ctx.signal.aborted).toBe(false);
    expect(rec.status).toBe(200);
    expect(rec.body()).toBe("ok");
  });

  it("answers 504 with upstream's timeout body when the handler outlives the deadline, aborts the signal and notes the termination", async () => {
    const { ctx, rec } = recordingContext({ path: "/api/v1/namespaces/a/pods/p", query: "timeout=30ms" });
    let handlerSignal: AbortSignal | undefined;
    let lateWrite: Promise<void> | undefined;
    const run = filter(60_000)(ctx, async () => {
      handlerSignal = ctx.signal;
      const handedOn = ctx.ex;
      lateWrite = sleep(80).then(() => {
        handedOn.head(200, {});
        handedOn.end("too late");
      });
      await lateWrite;
    });
    await run;
    expect(handlerSignal!.aborted).toBe(true);
    expect(handlerSignal!.reason).toMatchObject({ code: 504, reason: "Timeout", message: "Timeout: request did not complete within the allotted timeout" });
    expect(ctx.ex).toBe(rec.ex);
    expect(ctx.terminatedWith).toBe(504);
    // json.NewEncoder(w).Encode(&err.ErrStatus): no kind or apiVersion, sniffed as plain text.
    expect(rec.status).toBe(504);
    expect(rec.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(rec.body()).toBe('{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}\n');
    await lateWrite;
    expect(rec.status).toBe(504); // the handler's late answer went nowhere
  });

  it("leaves a write's own 34 s bound to be answered as the handler's negotiated error, not a termination", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "Date"] });
    try {
      const { ctx } = recordingContext({ method: "POST", path: "/api/v1/namespaces/a/configmaps" });
      const run = filter(60_000)(ctx, () => new Promise(() => undefined));
      const caught = expect(run).rejects.toMatchObject({ code: 504, message: "Timeout: request did not complete within requested timeout - context deadline exceeded" });
      await vi.advanceTimersByTimeAsync(writeUpperBoundMs + 1);
      await caught;
      expect(ctx.terminatedWith).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it("cuts off a response already under way when the deadline passes", async () => {
    const { ctx, rec } = recordingContext({ path: "/api/v1/pods" });
    await filter(20)(ctx, async () => {
      ctx.ex.head(200, {});
      ctx.ex.write("[");
      await sleep(60);
    });
    expect(rec.aborted).toBe(true);
  });

  it("counts the cut-off response (request_aborts_total) and how the handler ended after the deadline (request_post_timeout_total)", async () => {
    const metrics = new RequestPathMetrics();
    const samples = (f: "aborts" | "postTimeout") => metrics[f].render().split("\n").filter((l) => l && !l.startsWith("#"));
    const { ctx } = recordingContext({ path: "/api/v1/namespaces/a/pods" });
    let finish!: () => void;
    const handler = new Promise<void>((r) => (finish = r));
    await deadlineFilter({ requestTimeoutMs: 20, isLongRunning, metrics })(ctx, async () => {
      ctx.ex.head(200, {});
      ctx.ex.write("[");
      await handler;
    });
    expect(samples("aborts")).toEqual(['apiserver_request_aborts_total{group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 1']);
    // Still running: nothing counted until it ends.
    expect(samples("postTimeout")).toEqual([]);
    finish();
    await expect.poll(() => samples("postTimeout")).toEqual(['apiserver_request_post_timeout_total{source="timeout-handler",status="ok"} 1']);
    // A handler that throws what is not a Status after its deadline counts as a panic; a plain 504 with nothing under way aborts nothing.
    const late = recordingContext({ path: "/api/v1/namespaces/a/pods/p" });
    await deadlineFilter({ requestTimeoutMs: 20, isLongRunning, metrics })(late.ctx, () => sleep(40).then(() => Promise.reject(new TypeError("bug"))));
    await expect.poll(() => samples("postTimeout")).toContain('apiserver_request_post_timeout_total{source="timeout-handler",status="panic"} 1');
    expect(samples("aborts")).toHaveLength(1);
  });

  it("counts a write's handler after its own bound as the rest handler's: a Status is an error", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const metrics = new RequestPathMetrics();
      const { ctx } = recordingContext({ method: "POST", path: "/api/v1/namespaces/a/configmaps" });
      let fail!: (e: unknown) => void;
      const run = deadlineFilter({ requestTimeoutMs: 60_000, isLongRunning, metrics })(ctx, () => new Promise((_, reject) => (fail = reject)));
      const caught = expect(run).rejects.toMatchObject({ code: 504 });
      await vi.advanceTimersByTimeAsync(writeUpperBoundMs + 1);
      await caught;
      fail(new ApiError(409, "Conflict", "too late"));
      await vi.advanceTimersByTimeAsync(0);
      expect(metrics.postTimeout.render()).toContain('apiserver_request_post_timeout_total{source="rest-handler",status="error"} 1');
      // One that never ends is counted as pending after five minutes.
      const stuck = recordingContext({ method: "PUT", path: "/api/v1/namespaces/a/configmaps/c" });
      const never = deadlineFilter({ requestTimeoutMs: 60_000, isLongRunning, metrics })(stuck.ctx, () => new Promise(() => undefined));
      never.catch(() => undefined);
      await vi.advanceTimersByTimeAsync(writeUpperBoundMs + 5 * 60_000 + 1);
      expect(metrics.postTimeout.render()).toContain('apiserver_request_post_timeout_total{source="rest-handler",status="pending"} 1');
    } finally {
      vi.useRealTimers();
    }
  });

  it("passes a handler's own error through", async () => {
    const { ctx } = recordingContext({ path: "/api/v1/pods" });
    const err = new Error("handler failed");
    await expect(
      filter(60_000)(ctx, async () => {
        throw err;
      }),
    ).rejects.toBe(err);
  });

  it("bounds a write at 34 s, answered with the write handler's 504, when --request-timeout is longer", async () => {
    vi.useFakeTimers();
    try {
      const { ctx } = recordingContext({ method: "POST", path: "/api/v1/namespaces/a/configmaps" });
      let handlerSignal: AbortSignal | undefined;
      const run = filter(60_000)(ctx, () => {
        handlerSignal = ctx.signal;
        return new Promise<void>(() => undefined); // a webhook that never answers
      });
      const outcome = run.catch((e: unknown) => e);
      expect(ctx.deadline).toBe(ctx.receivedAt + writeUpperBoundMs);
      await vi.advanceTimersByTimeAsync(writeUpperBoundMs);
      expect(await outcome).toMatchObject({ code: 504, reason: "Timeout", message: "Timeout: request did not complete within requested timeout - context deadline exceeded" });
      expect(handlerSignal!.aborted).toBe(true);
      expect(ctx.cancelReason).toBe(handlerSignal!.reason);
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps the request's own deadline for a write when it is the shorter, and for reads", () => {
    const write = recordingContext({ method: "PUT", path: "/api/v1/namespaces/a/configmaps/c", query: "timeout=10s" });
    void filter(60_000)(write.ctx, async () => undefined);
    expect(write.ctx.deadline).toBe(write.ctx.receivedAt + 10_000);
    const shortServer = recordingContext({ method: "DELETE", path: "/api/v1/namespaces/a/configmaps" });
    void filter(20_000)(shortServer.ctx, async () => undefined);
    expect(shortServer.ctx.deadline).toBe(shortServer.ctx.receivedAt + 20_000);
    const read = recordingContext({ path: "/api/v1/namespaces/a/configmaps" });
    void filter(60_000)(read.ctx, async () => undefined);
    expect(read.ctx.deadline).toBe(read.ctx.receivedAt + 60_000);
  });

  it("gives long-running requests (watch) no deadline", async () => {
    const { ctx } = recordingContext({ path: "/api/v1/pods", query: "watch=true&timeout=1ms" });
    const next = vi.fn(async () => sleep(20));
    await filter(5)(ctx, next);
    expect(next).toHaveBeenCalledOnce();
    expect(ctx.deadline).toBeUndefined();
    expect(ctx.signal.aborted).toBe(false);
  });

  it("refuses a timeout parameter that is not a duration, before the handler runs", async () => {
    const { ctx } = recordingContext({ path: "/api/v1/pods", query: "timeout=soon" });
    const next = vi.fn(async () => undefined);
    await expect(filter(60_000)(ctx, next)).rejects.toMatchObject({
      code: 400,
      reason: "BadRequest",
      message: 'invalid timeout specified in the request URL - time: invalid duration "soon"',
    });
    expect(next).not.toHaveBeenCalled();
  });
});

describe("allottedTime", () => {
  it("shortens to a positive timeout parameter, never lengthens", () => {
    expect(allottedTime(null, 60_000)).toBe(60_000);
    expect(allottedTime("", 60_000)).toBe(60_000);
    expect(allottedTime("1s", 60_000)).toBe(1000);
    expect(allottedTime("1m30s", 60_000)).toBe(60_000);
    expect(allottedTime("0s", 60_000)).toBe(60_000);
    expect(allottedTime("-5s", 60_000)).toBe(60_000);
    expect(() => allottedTime("5", 60_000)).toThrow('invalid timeout specified in the request URL - time: missing unit in duration "5"');
  });

  it("has upstream's 504 Status", () => {
    expect(requestTimeoutError().toStatus()).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Timeout: request did not complete within the allotted timeout", reason: "Timeout", code: 504 });
  });
});
