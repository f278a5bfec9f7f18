import { describe, expect, it, vi } from "vitest";
import { recordingContext, type RecordingOptions } from "../../http/recording-exchange.testkit.js";
import { isLongRunning } from "../long-running.js";
import type { Filter } from "./filter.js";
import { passThrough } from "./filter.js";
import { maxInFlightFilter } from "./max-in-flight.js";

const user = { name: "jane", groups: ["system:authenticated"] };

/** Starts a request through the filter and keeps it in flight until release() is called. */
function hold(filter: Filter, o: RecordingOptions & { user?: typeof user } = {}) {
  const { ctx, rec } = recordingContext({ user, ...o });
  let release!: () => void;
  const next = vi.fn(() => new Promise<void>((r) => (release = r)));
  const done = filter(ctx, next);
  return { ctx, rec, next, done, release: () => release() };
}

function run(filter: Filter, o: RecordingOptions & { user?: typeof user } = {}) {
  const { ctx, rec } = recordingContext({ user, ...o });
  const next = vi.fn(async () => undefined);
  return filter(ctx, next).then(() => ({ rec, next }));
}

describe("max-in-flight filter", () => {
  it("answers 429 in upstream's words once read-only requests reach the limit", async () => {
    const f = maxInFlightFilter({ readOnly: 1, mutating: 1 }, isLongRunning);
    const first = hold(f, { path: "/api/v1/pods" });
    expect(first.next).toHaveBeenCalledOnce();
    const { rec, next } = await run(f, { path: "/api/v1/namespaces/a/pods/p" });
    expect(next).not.toHaveBeenCalled();
    expect(rec.status).toBe(429);
    expect(rec.headers["retry-after"]).toBe("1");
    expect(rec.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(rec.body()).toBe("Too many requests, please try again later.\n");
    first.release();
    await first.done;
    expect((await run(f, { path: "/api/v1/pods" })).next).toHaveBeenCalledOnce();
  });

  it("counts mutating requests apart from read-only ones", async () => {
    const f = maxInFlightFilter({ readOnly: 1, mutating: 1 }, isLongRunning);
    const read = hold(f, { path: "/api/v1/pods" });
    const write = hold(f, { method: "POST", path: "/api/v1/namespaces/a/pods" });
    expect(write.next).toHaveBeenCalledOnce();
    expect((await run(f, { method: "DELETE", path: "/api/v1/namespaces/a/pods/p" })).rec.status).toBe(429);
    // A non-resource HEAD is mutating by upstream's rule (its verb is "head").
    expect((await run(f, { method: "HEAD", path: "/healthz" })).rec.status).toBe(429);
    read.release();
    write.release();
    await Promise.all([read.done, write.done]);
  });

  it("does not count or refuse long-running requests (watch)", async () => {
    const f = maxInFlightFilter({ readOnly: 1, mutating: 1 }, isLongRunning);
    const watch = hold(f, { path: "/api/v1/pods", query: "watch=true" });
    const read = hold(f, { path: "/api/v1/pods" });
    expect(read.next).toHaveBeenCalledOnce();
    expect((await run(f, { path: "/api/v1/pods", query: "watch=1" })).next).toHaveBeenCalledOnce();
    watch.release();
    read.release();
  });

  it("lets system:masters through when the limit is reached", async () => {
    const f = maxInFlightFilter({ readOnly: 1, mutating: 1 }, isLongRunning);
    const first = hold(f, { path: "/api/v1/pods" });
    const admin = { name: "admin", groups: ["system:masters", "system:authenticated"] };
    expect((await run(f, { path: "/api/v1/pods", user: admin })).next).toHaveBeenCalledOnce();
    first.release();
  });

  it("frees the slot when the request fails", async () => {
    const f = maxInFlightFilter({ readOnly: 1, mutating: 1 }, isLongRunning);
    const { ctx } = recordingContext({ user, path: "/api/v1/pods" });
    await expect(f(ctx, async () => Promise.reject(new Error("x")))).rejects.toThrow("x");
    expect((await run(f, { path: "/api/v1/pods" })).next).toHaveBeenCalledOnce();
  });

  it("has no limit for a class set to 0, and is no stage at all when both are", async () => {
    expect(maxInFlightFilter({ readOnly: 0, mutating: 0 }, isLongRunning)).toBe(passThrough);
    const f = maxInFlightFilter({ readOnly: 0, mutating: 1 }, isLongRunning);
    const first = hold(f, { path: "/api/v1/pods" });
    expect((await run(f, { path: "/api/v1/pods" })).next).toHaveBeenCalledOnce();
    first.release();
  });
});
