import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticatorConformance } from "../conformance.testkit.js";
import { TokenCache } from "./cache.js";
import { checkWebhookVersion, webhookFromFlags, webhookTokenAuthenticator, type WebhookVersion } from "./index.js";
import { loadWebhookKubeconfig } from "./kubeconfig.js";
import { startTokenReviewWebhook, type TokenReviewWebhook } from "./server.testkit.js";

const dir = mkdtempSync(join(tmpdir(), "kapi-webhook-"));
let hook: TokenReviewWebhook;
const fastBackoff = { durationMs: 5, factor: 1.5, jitter: 0.2, steps: 5 };
const make = (version: WebhookVersion = "v1beta1", cacheTtlMs = 120_000, implicitAudiences: string[] = []) =>
  webhookTokenAuthenticator({ connection: loadWebhookKubeconfig(hook.kubeconfigPath), version, cacheTtlMs, implicitAudiences, backoff: fastBackoff });
const bearer = (t: string, audiences?: string[]) => ({ path: "/", headers: { authorization: `Bearer ${t}` }, ...(audiences ? { audiences } : {}) });

beforeAll(async () => {
  hook = await startTokenReviewWebhook(dir);
  hook.answers.set("good", { authenticated: true, user: { username: "wanda", uid: "w-1", groups: ["devs"], extra: { "example.com/scopes": ["a", "b"] } } });
  hook.answers.set("minimal", { authenticated: true, user: { username: "min" } });
  hook.answers.set("refused", { authenticated: false, error: "token expired" });
  hook.answers.set("refused-quietly", { authenticated: false });
  hook.answers.set("aud", { authenticated: true, user: { username: "audrey" }, audiences: ["svc-a"] });
  hook.answers.set("500", () => ({ status: 500, body: "overloaded" }));
  hook.answers.set("403", () => ({ status: 403, body: { kind: "Status", apiVersion: "v1", status: "Failure", message: "webhook says no", reason: "Forbidden", code: 403 } }));
  hook.answers.set("garbage", () => ({ status: 200, body: "not json" }));
  hook.answers.set("v1-answer", () => ({ status: 200, body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", status: { authenticated: true, user: { username: "x" } } } }));
}, 60_000);
afterAll(async () => hook?.close());

authenticatorConformance({
  method: "token webhook",
  make: () => make(),
  valid: [
    { title: "status.user as answered", request: bearer("good"), user: { name: "wanda", uid: "w-1", groups: ["devs"], extra: { "example.com/scopes": ["a", "b"] } } },
    { title: "username only", request: bearer("minimal"), user: { name: "min", groups: [] } },
  ],
  invalid: [
    { title: "authenticated: false with status.error", request: bearer("refused") },
    { title: "the webhook fails (500, after retries)", request: bearer("500") },
    { title: "the webhook refuses the call (403 Status)", request: bearer("403") },
    { title: "an answer that is not JSON", request: bearer("garbage") },
    { title: "an answer in another apiVersion", request: bearer("v1-answer") },
  ],
  absent: [
    { title: "authenticated: false without an error", request: bearer("refused-quietly") },
    { title: "no bearer token", request: { path: "/", headers: {} } },
  ],
});

describe("token webhook", () => {
  it("POSTs a TokenReview of the configured version, with the client certificate of the kubeconfig", async () => {
    const before = hook.requests.length;
    await make("v1").authenticate(bearer("good", ["api"]));
    await make("v1beta1").authenticate(bearer("good"));
    const [v1, beta] = hook.requests.slice(before);
    expect(v1).toMatchObject({ apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: "good", audiences: ["api"] } });
    expect(beta).toMatchObject({ apiVersion: "authentication.k8s.io/v1beta1", kind: "TokenReview", spec: { token: "good" } });
    expect(beta!.spec.audiences).toBeUndefined();
    expect(hook.clients.slice(before)).toEqual(["kube-apiserver", "kube-apiserver"]);
  });

  it("the answer's audiences must meet the wanted ones; without any, the server's own are assumed", async () => {
    expect(await make().authenticate(bearer("aud", ["svc-a", "svc-b"]))).toEqual({ user: { name: "audrey", groups: [] }, audiences: ["svc-a"] });
    expect(await make().authenticate(bearer("aud", ["svc-b"]))).toBeUndefined();
    expect(await make("v1beta1", 1000, ["api"]).authenticate(bearer("minimal", ["api", "other"]))).toEqual({ user: { name: "min", groups: [] }, audiences: ["api"] });
    expect(await make("v1beta1", 1000, ["api"]).authenticate(bearer("minimal", ["other"]))).toBeUndefined();
  });

  it("names the failure", async () => {
    expect(await make().authenticate(bearer("refused"))).toEqual({ error: "token expired" });
    expect(await make().authenticate(bearer("403"))).toEqual({ error: "webhook says no" });
    expect(await make().authenticate(bearer("500"))).toEqual({ error: 'an error on the server ("overloaded") has prevented the request from succeeding' });
  });

  it("retries 500 up to 5 calls, not 403", async () => {
    let n = hook.requests.length;
    await make().authenticate(bearer("500"));
    expect(hook.requests.length - n).toBe(5);
    n = hook.requests.length;
    await make().authenticate(bearer("403"));
    expect(hook.requests.length - n).toBe(1);
  });

  it("an unreachable webhook is an error", async () => {
    writeFileSync(join(dir, "down.kubeconfig"), `clusters: [{name: c, cluster: {server: "https://127.0.0.1:1/x"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`);
    const a = webhookTokenAuthenticator({ connection: loadWebhookKubeconfig(join(dir, "down.kubeconfig")), version: "v1", cacheTtlMs: 1000, backoff: fastBackoff });
    expect(await a.authenticate(bearer("t"))).toEqual({ error: 'Post "https://127.0.0.1:1/x": dial tcp 127.0.0.1:1: connect: connection refused' });
  });

  it("caches authenticated and not-authenticated answers for the TTL, never errors", async () => {
    const a = make("v1beta1", 60_000);
    const n = hook.requests.length;
    await a.authenticate(bearer("good"));
    await a.authenticate(bearer("good"));
    await a.authenticate(bearer("refused-quietly"));
    await a.authenticate(bearer("refused-quietly"));
    expect(hook.requests.length - n).toBe(2);
    const m = hook.requests.length;
    await a.authenticate(bearer("refused"));
    await a.authenticate(bearer("refused"));
    expect(hook.requests.length - m).toBe(2);
    // Audiences are part of the key.
    await a.authenticate(bearer("good", ["x"]));
    expect(hook.requests.length - m).toBe(3);
  });

  it("concurrent look-ups of one token share one call", async () => {
    const a = make("v1beta1", 60_000);
    const n = hook.requests.length;
    const rs = await Promise.all([1, 2, 3, 4].map(() => a.authenticate(bearer("minimal"))));
    expect(hook.requests.length - n).toBe(1);
    expect(rs.every((r) => r && "user" in r && r.user.name === "min")).toBe(true);
  });

  it("flags: version checked, kubeconfig errors named", () => {
    expect(() => checkWebhookVersion("v2")).toThrow('unsupported authentication webhook version "v2", supported versions are "v1", "v1beta1"');
    expect(webhookFromFlags({})).toBeUndefined();
    expect(() => webhookFromFlags({ authenticationTokenWebhookConfigFile: join(dir, "missing") })).toThrow(/no such file or directory/);
  });
});

describe("token cache", () => {
  it("expires entries after their TTL and keys by token and audiences without keeping the token", async () => {
    let now = 0;
    const c = new TokenCache<string>({ successTtlMs: 100, failureTtlMs: 10, now: () => now });
    let calls = 0;
    const ok = async () => (calls++, { ok: true as const, value: "u" });
    await c.lookup("t", [], ok);
    now = 99;
    await c.lookup("t", [], ok);
    expect(calls).toBe(1);
    now = 101;
    await c.lookup("t", [], ok);
    expect(calls).toBe(2);
    expect(c.keyOf("t", ["a", "b"])).not.toBe(c.keyOf("t", ["ab"]));
    // The key is a keyed hash: the token itself is not kept.
    const secret = "a-rather-long-bearer-token-value";
    expect(c.keyOf(secret, [])).not.toContain(secret);
    expect(c.keyOf(secret, [])).toBe(c.keyOf(secret, []));
    const no = async () => (calls++, { ok: false as const });
    await c.lookup("n", [], no);
    now += 11;
    await c.lookup("n", [], no);
    expect(calls).toBe(4);
  });
  it("keeps at most maxEntries", async () => {
    const c = new TokenCache<string>({ successTtlMs: 1000, failureTtlMs: 1000, maxEntries: 2 });
    for (const t of ["a", "b", "c"]) await c.lookup(t, [], async () => ({ ok: true, value: t }));
    expect(c.size).toBe(2);
  });
});
