import { describe, expect, it, vi } from "vitest";
import type { Attributes, Authorizer } from "../../authz/authorizer.js";
import { recordingContext } from "../../http/recording-exchange.testkit.js";
import { impersonationFilter } from "./impersonation.js";

const caller = { name: "ops", groups: ["system:authenticated"] };

function authorizer(allow: boolean): Authorizer & { asked: Attributes[] } {
  const asked: Attributes[] = [];
  return { asked, authorize: (a) => (asked.push(a), { decision: allow ? "allow" : "deny", reason: "" }) };
}

describe("impersonation filter", () => {
  it("leaves the caller as the user when no impersonation is asked for", async () => {
    const z = authorizer(false);
    const { ctx } = recordingContext({ user: caller });
    const next = vi.fn(async () => undefined);
    await impersonationFilter(z)(ctx, next);
    expect(ctx.user).toBe(caller);
    expect(next).toHaveBeenCalledOnce();
    expect(z.asked).toEqual([]);
  });

  it("serves the rest of the chain as the impersonated user once allowed", async () => {
    const z = authorizer(true);
    const { ctx } = recordingContext({ user: caller, headers: { "impersonate-user": "jane", "impersonate-group": "team" } });
    await impersonationFilter(z)(ctx, async () => undefined);
    expect(ctx.user).toEqual({ name: "jane", groups: ["team", "system:authenticated"] });
    expect(z.asked.map((a) => [a.verb, a.resource, a.name])).toEqual([
      ["impersonate", "users", "jane"],
      ["impersonate", "groups", "team"],
    ]);
  });

  it("answers 403 when the caller may not impersonate, and goes no further", async () => {
    const { ctx } = recordingContext({ user: caller, headers: { "impersonate-user": "jane" } });
    const next = vi.fn(async () => undefined);
    await expect(impersonationFilter(authorizer(false))(ctx, next)).rejects.toMatchObject({
      code: 403,
      message: 'users "jane" is forbidden: User "ops" cannot impersonate resource "users" in API group "" at the cluster scope',
    });
    expect(next).not.toHaveBeenCalled();
    expect(ctx.user).toBe(caller);
  });
});
