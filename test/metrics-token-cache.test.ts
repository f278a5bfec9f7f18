// The token cache families (kube-apiserver 1.34's apiserver/pkg/authentication/token/cache)
// against a real server whose bearer tokens end at a TokenReview webhook, read by a real
// Prometheus text parser: look-ups by hit or miss with their duration, the webhook calls made on
// misses by outcome (an answer, authenticated or not, is ok; an error is an error and is not
// cached), and no look-up left waiting.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTokenReviewWebhook, type TokenReviewWebhook } from "../src/authn/webhook/server.testkit.js";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { parseMetricsPage } from "./support/prometheus-text.js";

let dir: string;
let hook: TokenReviewWebhook;
let s: EmbeddedTestServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kapi-token-cache-"));
  hook = await startTokenReviewWebhook(dir);
  hook.answers.set("good-token", { authenticated: true, user: { username: "wanda", groups: ["devs"] } });
  hook.answers.set("expired-token", { authenticated: false, error: "token has expired" });
  s = await startTestServer({ dataDir: join(dir, "data"), options: { authenticationTokenWebhookConfigFile: hook.kubeconfigPath, authenticationTokenWebhookVersion: "v1" } });
}, 60_000);
afterAll(async () => {
  await s?.stop();
  await hook?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const whoami = (token: string) =>
  req(s, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", { body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }, creds: { ca: s.admin.ca, token } });

describe("authentication_token_cache_* (real server, token webhook)", () => {
  it("counts look-ups by hit and miss, webhook calls by outcome, and ends with none waiting", async () => {
    expect((await whoami("good-token")).json?.status?.userInfo?.username).toBe("wanda");
    expect((await whoami("good-token")).status).toBe(201);
    // Errors are never cached: both look-ups call the webhook.
    expect((await whoami("expired-token")).status).toBe(401);
    expect((await whoami("expired-token")).status).toBe(401);
    // "Not authenticated" is an answer: called once, then cached.
    expect((await whoami("unknown-token")).status).toBe(401);
    expect((await whoami("unknown-token")).status).toBe(401);
    expect(hook.requests.map((r) => r.spec.token)).toEqual(["good-token", "expired-token", "expired-token", "unknown-token"]);

    const page = parseMetricsPage((await req(s, "GET", "/metrics")).text);
    const value = (name: string, status: string) => page.find(name, { status }).map((x) => x.value);
    for (const [name, type] of [
      ["authentication_token_cache_request_total", "COUNTER"],
      ["authentication_token_cache_request_duration_seconds", "HISTOGRAM"],
      ["authentication_token_cache_fetch_total", "COUNTER"],
      ["authentication_token_cache_active_fetch_count", "GAUGE"],
    ]) {
      expect(page.families.get(name!)?.type, name).toBe(type);
      expect(page.families.get(name!)?.help, name).toMatch(/^\[ALPHA\] \S/);
    }
    expect(value("authentication_token_cache_request_total", "hit")).toEqual([2]);
    expect(value("authentication_token_cache_request_total", "miss")).toEqual([4]);
    expect(value("authentication_token_cache_request_duration_seconds_count", "hit")).toEqual([2]);
    expect(value("authentication_token_cache_request_duration_seconds_count", "miss")).toEqual([4]);
    expect(page.families.get("authentication_token_cache_request_duration_seconds")?.buckets).toEqual(["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"]);
    expect(value("authentication_token_cache_fetch_total", "ok")).toEqual([2]);
    expect(value("authentication_token_cache_fetch_total", "error")).toEqual([2]);
    expect(value("authentication_token_cache_active_fetch_count", "blocked")).toEqual([0]);
    expect(value("authentication_token_cache_active_fetch_count", "in_flight")).toEqual([0]);
  }, 60_000);
});
