import { describe, expect, it, vi } from "vitest";
import type { AuthnRequest } from "../../authn/authenticator.js";
import { recordingContext } from "../../http/recording-exchange.testkit.js";
import { AuthenticationMetrics } from "../../observability/authn-metrics.js";
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

  it("counts attempts by result: success (by user category), error for a refused credential, failure when nothing was recognised", async () => {
    const m = new AuthenticationMetrics();
    const outcomes = [{ user: { name: "jane@example.com", groups: [] } }, { user: { name: "kubelet", groups: [] } }, { error: "invalid bearer token" }, { error: "Unauthorized", unrecognised: true as const }];
    for (const outcome of outcomes) {
      const { ctx } = recordingContext({ path: "/api/v1/pods" });
      await authenticationFilter(async () => outcome, m)(ctx, async () => undefined).catch(() => undefined);
    }
    const samples = (f: { render(): string }) => f.render().split("\n").filter((l) => l && !l.startsWith("#"));
    expect(samples(m.attempts)).toEqual(['authentication_attempts{result="error"} 1', 'authentication_attempts{result="failure"} 1', 'authentication_attempts{result="success"} 2']);
    expect(samples(m.users)).toEqual(['authenticated_user_requests{username="email_id"} 1', 'authenticated_user_requests{username="kubelet"} 1']);
    expect(samples(m.duration).filter((l) => l.includes("_count"))).toHaveLength(3);
  });
});
