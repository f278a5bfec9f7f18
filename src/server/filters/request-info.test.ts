import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../../apimachinery/errors.js";
import { recordingContext } from "../../http/recording-exchange.testkit.js";
import { requestInfoFilter } from "./request-info.js";

describe("request info filter", () => {
  it("parses the request for the stages after it", async () => {
    const { ctx } = recordingContext({ method: "GET", path: "/api/v1/namespaces/ns1/pods", query: "watch=true", parse: false });
    const next = vi.fn(async () => undefined);
    await requestInfoFilter()(ctx, next);
    expect(next).toHaveBeenCalledOnce();
    expect(ctx.info).toMatchObject({ isResourceRequest: true, verb: "watch", namespace: "ns1", resource: "pods" });
  });

  it("answers 400 for a malformed path and goes no further", async () => {
    const { ctx } = recordingContext({ path: "/api/v1/namespaces/%zz/pods", parse: false });
    const next = vi.fn(async () => undefined);
    const run = requestInfoFilter()(ctx, next);
    await expect(run).rejects.toBeInstanceOf(ApiError);
    await expect(run).rejects.toMatchObject({ code: 400, reason: "BadRequest" });
    expect(next).not.toHaveBeenCalled();
  });
});
