import { describe, expect, it, vi } from "vitest";
import type { Attributes, Authorizer } from "../../authz/authorizer.js";
import { recordingContext } from "../../http/recording-exchange.testkit.js";
import { AuthorizationFilterMetrics } from "../../observability/authz-metrics.js";
import { recordingAudit } from "../../observability/audit/recorder.testkit.js";
import { authorizationFilter } from "./authorization.js";

const user = { name: "jane", groups: ["system:authenticated"] };

function authorizer(decision: "allow" | "deny" | "no-opinion", reason = ""): Authorizer & { asked: Attributes[] } {
  const asked: Attributes[] = [];
  return { asked, authorize: (a) => (asked.push(a), { decision, reason }) };
}

describe("authorization filter", () => {
  it("hands on an allowed request, asking with the request's attributes", async () => {
    const z = authorizer("allow");
    const { ctx } = recordingContext({ method: "DELETE", path: "/apis/apps/v1/namespaces/a/deployments/d", user });
    const next = vi.fn(async () => undefined);
    await authorizationFilter(z)(ctx, next);
    expect(next).toHaveBeenCalledOnce();
    expect(z.asked).toEqual([
      { user, verb: "delete", isResourceRequest: true, path: "/apis/apps/v1/namespaces/a/deployments/d", namespace: "a", apiGroup: "apps", apiVersion: "v1", resource: "deployments", subresource: "", name: "d" },
    ]);
  });

  it("answers 403 in upstream's words for a denied resource request", async () => {
    const { ctx } = recordingContext({ method: "GET", path: "/api/v1/namespaces/a/pods/p/log", user });
    const next = vi.fn(async () => undefined);
    await expect(authorizationFilter(authorizer("deny", "no rule"))(ctx, next)).rejects.toMatchObject({
      code: 403,
      reason: "Forbidden",
      message: 'pods "p" is forbidden: User "jane" cannot get resource "pods/log" in API group "" in the namespace "a": no rule',
      details: { name: "p", kind: "pods" },
      headers: { "x-content-type-options": "nosniff" },
    });
    expect(next).not.toHaveBeenCalled();
  });

  it("denies when no authorizer has an opinion, with the non-resource wording", async () => {
    const { ctx } = recordingContext({ method: "GET", path: "/metrics", user });
    await expect(authorizationFilter(authorizer("no-opinion"))(ctx, async () => undefined)).rejects.toMatchObject({
      code: 403,
      message: 'forbidden: User "jane" cannot get path "/metrics"',
    });
  });

  it("names a cluster-scoped resource at the cluster scope and escapes HTML from the client", async () => {
    const { ctx } = recordingContext({ method: "GET", path: "/api/v1/nodes/<b>", user });
    await expect(authorizationFilter(authorizer("deny"))(ctx, async () => undefined)).rejects.toMatchObject({
      message: 'nodes "<b>" is forbidden: User "jane" cannot get resource "nodes" in API group "" at the cluster scope',
    });
    const { ctx: np } = recordingContext({ method: "GET", path: "/x<y>&z", user });
    await expect(authorizationFilter(authorizer("deny"))(np, async () => undefined)).rejects.toMatchObject({
      message: 'forbidden: User "jane" cannot get path "/x&lt;y&gt;&amp;z"',
    });
  });

  it("not allowed because an authorizer failed → 500 with the error (upstream); allowed despite an error → served", async () => {
    const failing: Authorizer = { authorize: () => ({ decision: "deny", reason: "", error: "webhook unreachable" }) };
    const { ctx } = recordingContext({ method: "GET", path: "/api/v1/pods", user });
    const audit = recordingAudit();
    ctx.audit = audit;
    await expect(authorizationFilter(failing)(ctx, async () => undefined)).rejects.toMatchObject({ code: 500, reason: "InternalError", message: "Internal error occurred: webhook unreachable" });
    expect(audit.annotations).toEqual({ "authorization.k8s.io/reason": "internal error" });
    const allowing: Authorizer = { authorize: () => ({ decision: "allow", reason: "ok", error: "one of them failed" }) };
    const next = vi.fn(async () => undefined);
    const c2 = recordingContext({ method: "GET", path: "/api/v1/pods", user }).ctx;
    const audit2 = recordingAudit();
    c2.audit = audit2;
    await authorizationFilter(allowing)(c2, next);
    expect(next).toHaveBeenCalledOnce();
    expect(audit2.annotations).toEqual({ "authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "ok" });
  });

  it("counts attempts by result as upstream: allowed, denied, no-opinion (nobody had one), error", async () => {
    const m = new AuthorizationFilterMetrics();
    const results = [
      { decision: "allow" as const, reason: "" },
      { decision: "allow" as const, reason: "", error: "a webhook failed, RBAC allowed" },
      { decision: "deny" as const, reason: "" },
      { decision: "deny" as const, reason: "", defaultDeny: true },
      { decision: "deny" as const, reason: "", error: "webhook failed" },
    ];
    for (const r of results) {
      const { ctx } = recordingContext({ method: "GET", path: "/api/v1/pods", user });
      await authorizationFilter({ authorize: () => r }, m)(ctx, async () => undefined).catch(() => undefined);
    }
    const samples = m.attempts.render().split("\n").filter((l) => l && !l.startsWith("#"));
    expect(samples).toEqual(['authorization_attempts_total{result="allowed"} 2', 'authorization_attempts_total{result="denied"} 1', 'authorization_attempts_total{result="error"} 1', 'authorization_attempts_total{result="no-opinion"} 1']);
    expect(m.duration.render()).toContain('authorization_duration_seconds_bucket{result="allowed",le="0.001"}');
  });
});
