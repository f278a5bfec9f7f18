import { describe, expect, it } from "vitest";
import { ApiError } from "../apimachinery/errors.js";
import { newRequestContext, requestInfoOf, StreamClosedError, userOf } from "./context.js";
import { recordingExchange } from "./recording-exchange.testkit.js";

describe("RequestContext", () => {
  it("starts empty but for the exchange and its arrival time", () => {
    const rec = recordingExchange();
    const ctx = newRequestContext(rec.ex, 1234);
    expect(ctx.ex).toBe(rec.ex);
    expect(ctx.receivedAt).toBe(1234);
    expect([ctx.info, ctx.user, ctx.deadline, ctx.audit]).toEqual([undefined, undefined, undefined, undefined]);
    expect(ctx.warnings).toEqual([]);
    expect(ctx.signal.aborted).toBe(false);
  });

  it("aborts its signal when the stream closes", () => {
    const rec = recordingExchange();
    const ctx = newRequestContext(rec.ex);
    const signal = ctx.signal;
    rec.close();
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(StreamClosedError);
  });

  it("has an aborted signal when first read after the stream closed", () => {
    const rec = recordingExchange();
    const ctx = newRequestContext(rec.ex);
    rec.close();
    expect(ctx.signal.aborted).toBe(true);
    expect(ctx.signal.reason).toBeInstanceOf(StreamClosedError);
  });

  it("keeps the first reason, also for a signal first read after the cancel", () => {
    const rec = recordingExchange();
    const ctx = newRequestContext(rec.ex);
    const first = new Error("deadline");
    ctx.cancel(first);
    ctx.cancel(new Error("later"));
    rec.close();
    expect(ctx.signal.aborted).toBe(true);
    expect(ctx.signal.reason).toBe(first);
  });

  it("reports a missing request info or user as a wrongly built chain (500)", () => {
    const ctx = newRequestContext(recordingExchange().ex);
    expect(() => requestInfoOf(ctx)).toThrow(ApiError);
    expect(() => requestInfoOf(ctx)).toThrow(/no RequestInfo found in the context/);
    expect(() => userOf(ctx)).toThrow(/no User found in the context/);
    ctx.user = { name: "u", groups: [] };
    expect(userOf(ctx).name).toBe("u");
  });
});
