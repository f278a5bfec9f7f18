import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadWebhookKubeconfig } from "../../webhook/kubeconfig.js";
import { attributes, authorizerConformance } from "../conformance.testkit.js";
import { attributesFor } from "../attributes.js";
import { parseRequestInfo } from "../../http/request-info.js";
import { webhookAuthorizer, type WebhookAuthorizerOptions } from "./index.js";
import { compileMatchCondition } from "./match-conditions.js";
import { startSarWebhook, type SarWebhook } from "./server.testkit.js";

const dir = mkdtempSync(join(tmpdir(), "authz-webhook-"));
let hook: SarWebhook;
beforeAll(async () => {
  hook = await startSarWebhook(dir);
});
afterAll(() => hook.close());
beforeEach(() => {
  hook.requests.length = 0;
  hook.clients.length = 0;
  hook.reply = (r) => {
    const ra = r.spec.resourceAttributes ?? {};
    const na = r.spec.nonResourceAttributes ?? {};
    if (r.spec.user === "alice") return { allowed: true, reason: "alice may" };
    if (ra.resource === "secrets") return { allowed: false, denied: true, reason: "no secrets" };
    if (na.path === "/broken") return { status: 500, body: "boom" };
    if (ra.resource === "flaky") return { allowed: false, evaluationError: "rule X failed" };
    return { allowed: false, reason: "not mine" };
  };
});

const fast = { durationMs: 5, factor: 1, jitter: 0, steps: 2 };
const options = (o: Partial<WebhookAuthorizerOptions> = {}): WebhookAuthorizerOptions => ({
  name: "default",
  connection: loadWebhookKubeconfig(hook.kubeconfigPath),
  version: "v1beta1",
  authorizedTtlMs: 0,
  unauthorizedTtlMs: 0,
  timeoutMs: 2000,
  failurePolicy: "NoOpinion",
  authorizeWithSelectors: true,
  backoff: fast,
  ...o,
});

const bob = { name: "bob", uid: "42", groups: ["dev", "system:authenticated"], extra: { scopes: ["a", "b"] } };

authorizerConformance({
  name: "Webhook",
  make: () => webhookAuthorizer(options()),
  cases: [
    { title: "allowed", attributes: { user: { name: "alice", groups: [] }, verb: "get", resource: "pods", namespace: "default" }, decision: "allow", reasonMatches: "alice may" },
    { title: "denied", attributes: { user: bob, verb: "get", resource: "secrets", namespace: "default" }, decision: "deny", reasonMatches: "no secrets", error: false },
    { title: "no opinion", attributes: { user: bob, verb: "get", resource: "pods", namespace: "default" }, decision: "no-opinion", reasonMatches: "not mine" },
    { title: "evaluationError is informational (upstream ignores it)", attributes: { user: bob, verb: "get", resource: "flaky" }, decision: "no-opinion", error: false },
    { title: "a 500 → no opinion with the error (after retries)", attributes: { user: bob, verb: "get", isResourceRequest: false, path: "/broken" }, decision: "no-opinion", error: /boom/ },
  ],
});

authorizerConformance({
  name: "Webhook (failurePolicy Deny)",
  make: () => webhookAuthorizer(options({ failurePolicy: "Deny" })),
  cases: [{ title: "a 500 → deny with the error", attributes: { user: bob, verb: "get", isResourceRequest: false, path: "/broken" }, decision: "deny", error: /boom/ }],
});

describe("webhook authorizer", () => {
  it("sends a v1beta1 SubjectAccessReview (spec.group) over TLS with the client certificate", async () => {
    const z = webhookAuthorizer(options());
    const info = parseRequestInfo("GET", "/api/v1/namespaces/ns1/pods", new URLSearchParams("labelSelector=app%3Dweb,tier!%3Ddb,env&fieldSelector=spec.nodeName%3Dn1"), { authorizeWithSelectors: true });
    await z.authorize(attributesFor(bob, info));
    expect(hook.clients).toEqual(["kube-apiserver"]);
    expect(hook.requests[0]).toEqual({
      apiVersion: "authorization.k8s.io/v1beta1",
      kind: "SubjectAccessReview",
      metadata: {},
      spec: {
        resourceAttributes: {
          namespace: "ns1",
          verb: "list",
          version: "v1",
          resource: "pods",
          fieldSelector: { requirements: [{ key: "spec.nodeName", operator: "In", values: ["n1"] }] },
          labelSelector: {
            requirements: [
              { key: "app", operator: "In", values: ["web"] },
              { key: "env", operator: "Exists" },
              { key: "tier", operator: "NotIn", values: ["db"] },
            ],
          },
        },
        user: "bob",
        group: ["dev", "system:authenticated"],
        extra: { scopes: ["a", "b"] },
        uid: "42",
      },
      status: { allowed: false },
    });
  });

  it("v1 names the groups spec.groups; non-resource attributes carry path and verb", async () => {
    const z = webhookAuthorizer(options({ version: "v1" }));
    await z.authorize(attributes({ user: bob, verb: "get", isResourceRequest: false, path: "/healthz" }));
    expect(hook.requests[0]!.apiVersion).toBe("authorization.k8s.io/v1");
    expect(hook.requests[0]!.spec).toEqual({ nonResourceAttributes: { path: "/healthz", verb: "get" }, user: "bob", groups: ["dev", "system:authenticated"], extra: { scopes: ["a", "b"] }, uid: "42" });
  });

  it("without AuthorizeWithSelectors no selectors are sent", async () => {
    const z = webhookAuthorizer(options({ authorizeWithSelectors: false }));
    const info = parseRequestInfo("GET", "/api/v1/pods", new URLSearchParams("labelSelector=a%3Db"), { authorizeWithSelectors: false });
    await z.authorize(attributesFor(bob, info));
    expect(hook.requests[0]!.spec.resourceAttributes).toEqual({ verb: "list", version: "v1", resource: "pods" });
  });

  it("caches allowed and denied answers for their TTLs", async () => {
    const z = webhookAuthorizer(options({ authorizedTtlMs: 60_000, unauthorizedTtlMs: 60_000 }));
    const a = attributes({ user: { name: "alice", groups: [] }, verb: "get", resource: "pods" });
    await z.authorize(a);
    await z.authorize(a);
    const d = attributes({ user: bob, verb: "get", resource: "secrets" });
    expect((await z.authorize(d)).decision).toBe("deny");
    expect((await z.authorize(d)).decision).toBe("deny");
    expect(hook.requests).toHaveLength(2);
    const short = webhookAuthorizer(options({ authorizedTtlMs: 60_000, unauthorizedTtlMs: 0 }));
    await short.authorize(d);
    await short.authorize(d);
    expect(hook.requests).toHaveLength(4);
  });

  it("errors are never cached; 500 is retried", async () => {
    const z = webhookAuthorizer(options({ authorizedTtlMs: 60_000, unauthorizedTtlMs: 60_000 }));
    const a = attributes({ user: bob, verb: "get", isResourceRequest: false, path: "/broken" });
    await z.authorize(a);
    expect(hook.requests).toHaveLength(2); // 2 attempts
    await z.authorize(a);
    expect(hook.requests).toHaveLength(4);
  });

  it("a slow webhook times out: failure policy decides, with the error", async () => {
    hook.reply = () => ({ status: 200, body: { apiVersion: "authorization.k8s.io/v1beta1", kind: "SubjectAccessReview", status: { allowed: true } }, delayMs: 1500 });
    const t0 = Date.now();
    const r = await webhookAuthorizer(options({ timeoutMs: 200 })).authorize(attributes({ user: bob, verb: "get", resource: "pods" }));
    expect(Date.now() - t0).toBeLessThan(1400);
    expect(r.decision).toBe("no-opinion");
    expect(r.error).toMatch(/deadline exceeded|Timeout/);
    const d = await webhookAuthorizer(options({ timeoutMs: 200, failurePolicy: "Deny" })).authorize(attributes({ user: bob, verb: "get", resource: "pods" }));
    expect(d.decision).toBe("deny");
  });

  it("an unreachable webhook → failure policy", async () => {
    const conn = loadWebhookKubeconfig(hook.kubeconfigPath);
    conn.server = new URL("https://127.0.0.1:1/authorize");
    const r = await webhookAuthorizer(options({ connection: conn })).authorize(attributes({ user: bob, verb: "get", resource: "pods" }));
    expect(r).toMatchObject({ decision: "no-opinion", reason: "" });
    expect(r.error).toMatch(/connection refused/);
  });

  it("allowed and denied at once → deny with an error; malformed answers → failure policy", async () => {
    hook.reply = () => ({ allowed: true, denied: true, reason: "confused" });
    expect(await webhookAuthorizer(options()).authorize(attributes({ user: bob, verb: "get", resource: "pods" }))).toEqual({ decision: "deny", reason: "confused", error: "webhook subject access review returned both allow and deny response" });
    hook.reply = () => ({ status: 200, body: { apiVersion: "authorization.k8s.io/v1beta1", kind: "SubjectAccessReview", status: { allowed: "yes" } } });
    const r = await webhookAuthorizer(options({ failurePolicy: "Deny" })).authorize(attributes({ user: bob, verb: "get", resource: "pods" }));
    expect(r.decision).toBe("deny");
    expect(r.error).toMatch(/malformed status.allowed/);
    hook.reply = () => ({ status: 200, body: { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", status: { allowed: true } } });
    expect((await webhookAuthorizer(options()).authorize(attributes({ user: bob, verb: "get", resource: "pods" }))).error).toMatch(/apiVersion/);
  });

  it("match conditions: all true → asked; one false → no opinion, not asked; an error → failure policy", async () => {
    const mc = (...exprs: string[]) => exprs.map((e) => compileMatchCondition(e, true));
    const z = webhookAuthorizer(options({ matchConditions: mc("has(request.resourceAttributes)", "request.resourceAttributes.namespace != 'kube-system'") }));
    expect((await z.authorize(attributes({ user: { name: "alice", groups: [] }, verb: "get", resource: "pods", namespace: "default" }))).decision).toBe("allow");
    expect(hook.requests).toHaveLength(1);
    expect(await z.authorize(attributes({ user: { name: "alice", groups: [] }, verb: "get", resource: "pods", namespace: "kube-system" }))).toEqual({ decision: "no-opinion", reason: "" });
    expect(await z.authorize(attributes({ user: { name: "alice", groups: [] }, verb: "get", isResourceRequest: false, path: "/x" }))).toEqual({ decision: "no-opinion", reason: "" });
    expect(hook.requests).toHaveLength(1);
    const erring = mc("request.resourceAttributes.namespace == 'x'");
    const deny = await webhookAuthorizer(options({ failurePolicy: "Deny", matchConditions: erring })).authorize(attributes({ user: bob, verb: "get", isResourceRequest: false, path: "/x" }));
    expect(deny.decision).toBe("deny");
    expect(deny.error).toMatch(/^cel evaluation error: expression 'request.resourceAttributes.namespace == 'x'' resulted in error: /);
    const skip = await webhookAuthorizer(options({ matchConditions: erring })).authorize(attributes({ user: bob, verb: "get", isResourceRequest: false, path: "/x" }));
    expect(skip.decision).toBe("no-opinion");
    expect(hook.requests).toHaveLength(1);
  });

  it("match conditions compile against the SubjectAccessReviewSpec and must be bool", () => {
    expect(() => compileMatchCondition("request.nope == 1", true)).toThrow(/^compilation failed: /);
    expect(() => compileMatchCondition("request.user", true)).toThrow("must evaluate to bool but got string");
    expect(() => compileMatchCondition("has(request.resourceAttributes.labelSelector)", false)).toThrow(/compilation failed/);
    compileMatchCondition("has(request.resourceAttributes.labelSelector)", true);
  });
});
