import { describe, expect, it, vi } from "vitest";
import { recordingContext } from "../../http/recording-exchange.testkit.js";
import { auditFilter } from "./audit.js";

describe("audit filter (no audit policy yet)", () => {
  it("hands the request on once and records nothing", async () => {
    const { ctx } = recordingContext();
    const next = vi.fn(async () => undefined);
    await auditFilter()(ctx, next);
    expect(next).toHaveBeenCalledOnce();
    expect(ctx.audit).toBeUndefined();
  });

  it("lets a later stage's error through to recovery", async () => {
    const { ctx } = recordingContext();
    const err = new Error("later");
    await expect(
      auditFilter()(ctx, async () => {
        throw err;
      }),
    ).rejects.toBe(err);
  });
});
