import { describe, expect, it, vi } from "vitest";
import type { AuthnRequest } from "../../authn/authenticator.js";
import { recordingContext } from "../../http/recording-exchange.testkit.js";
import { authenticationFilter } from "./authentication.js";

describe("authentication filter", () => {
  it("sets the user the authenticators recognised and hands on", async () => {
    const seen: AuthnRequest[] = [];
    const filter = authenticationFilter(async (req) => {
      seen.push(req);
      return { user: { name: "alice", groups: ["dev", "system:authenticated"] } };
    });
    const { ctx } = recordingContext({ path: "/api/v1/pods", headers: { authorization: "Bearer t" }, socket: { authorized: false } });
    const next = vi.fn(async () => undefined);
    await filter(ctx, next);
    expect(next).toHaveBeenCalledOnce();
    expect(ctx.user).toEqual({ name: "alice", groups: ["dev", "system:authenticated"] });
    expect(seen[0]).toEqual({ path: "/api/v1/pods", headers: { authorization: "Bearer t" }, peerCertificate: undefined });
  });

  it("answers 401 when no authenticator recognises the request", async () => {
    const filter = authenticationFilter(async () => ({ error: "invalid bearer token" }));
    const { ctx } = recordingContext({ path: "/api/v1/pods" });
    const next = vi.fn(async () => undefined);
    await expect(filter(ctx, next)).rejects.toMatchObject({ code: 401, reason: "Unauthorized", message: "Unauthorized" });
    expect(next).not.toHaveBeenCalled();
    expect(ctx.user).toBeUndefined();
  });
});
