// Webhook authorization against a real server: kubectl auth can-i answered by a loopback
// SubjectAccessReview webhook (HTTPS with a client certificate), upstream's 403 text, the admin
// (system:masters) never reaching the webhook, create-on-update authorized as create, and the
// authorization configuration file reloaded while serving.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type TestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { Heard } from "./support/heard.js";
import { startSarWebhook, type SarRequest, type SarWebhook } from "../src/authz/webhook/server.testkit.js";

const bin = kubectlBinary(33) ?? kubectlBinary(32);

/** alice: everything; bob: read pods in default; secrets: denied; carol: patch configmaps (create only in "open"). */
function policy(r: SarRequest): Record<string, unknown> {
  const ra = (r.spec.resourceAttributes ?? {}) as Record<string, string>;
  if (r.spec.user === "alice") return { allowed: true };
  if (ra.resource === "secrets") return { allowed: false, denied: true, reason: "secrets are off limits" };
  if (r.spec.user === "bob" && ra.resource === "pods" && ra.namespace === "default" && ["get", "list", "watch"].includes(ra.verb ?? "")) return { allowed: true, reason: "bob reads pods" };
  if (r.spec.user === "carol" && ra.resource === "configmaps" && (ra.verb === "patch" || (ra.verb === "create" && ra.namespace === "open"))) return { allowed: true };
  return { allowed: false, reason: "not mine" };
}

function tokenKubeconfig(s: TestServer, dir: string): string {
  const kc = parse(s.kubeconfig);
  kc.users = [{ name: "nobody", user: {} }];
  kc.contexts = [{ name: "token", context: { cluster: kc.clusters[0].name, user: "nobody" } }];
  kc["current-context"] = "token";
  const file = join(dir, "token.kubeconfig");
  writeFileSync(file, stringify(kc));
  return file;
}

describe("--authorization-mode=Webhook", () => {
  let dir: string;
  let hook: SarWebhook;
  let s: TestServer;
  let tokenKc: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-authz-webhook-"));
    hook = await startSarWebhook(dir);
    hook.reply = policy;
    const tokens = join(dir, "tokens.csv");
    writeFileSync(tokens, "tok-alice,alice,u1\ntok-bob,bob,u2,dev\ntok-carol,carol,u3\n");
    s = await startTestServer({
      dataDir: join(dir, "data"),
      options: {
        tokenAuthFile: tokens,
        authorizationMode: ["Webhook"],
        authorizationWebhookConfigFile: hook.kubeconfigPath,
        authorizationWebhookVersion: "v1",
        authorizationWebhookCacheAuthorizedTtlMs: 0,
        authorizationWebhookCacheUnauthorizedTtlMs: 0,
      },
    });
    tokenKc = tokenKubeconfig(s, dir);
  });
  afterAll(async () => {
    await s?.stop();
    await hook?.close();
  });

  const canI = (token: string, ...args: string[]) => kubectl(bin!, tokenKc, ["--token", token, "auth", "can-i", ...args]);

  it.skipIf(!bin)("kubectl auth can-i asks the webhook (SelfSubjectAccessReview → SubjectAccessReview v1)", async () => {
    // can-i itself needs create on selfsubjectaccessreviews: alice has everything, bob gets it below.
    hook.reply = (r) => ((r.spec.resourceAttributes as Record<string, string> | undefined)?.resource === "selfsubjectaccessreviews" ? { allowed: true } : policy(r));
    expect(await canI("tok-alice", "delete", "nodes")).toMatchObject({ code: 0, stdout: "yes\n" });
    expect(await canI("tok-bob", "list", "pods", "-n", "default")).toMatchObject({ code: 0, stdout: "yes\n" });
    const no = await canI("tok-bob", "create", "pods", "-n", "default");
    expect(no.code).toBe(1);
    expect(no.stdout).toBe("no - not mine\n");
    const denied = await canI("tok-bob", "get", "secrets", "-n", "default");
    expect(denied.code).toBe(1);
    expect(denied.stdout).toMatch(/^no/);
    const asked = hook.requests.filter((r) => (r.spec.resourceAttributes as Record<string, string> | undefined)?.resource === "pods" && r.spec.user === "bob").at(-1)!;
    expect(asked.apiVersion).toBe("authorization.k8s.io/v1");
    expect(asked.spec).toMatchObject({ user: "bob", uid: "u2", groups: ["dev", "system:authenticated"], resourceAttributes: { namespace: "default", verb: "create", resource: "pods" } });
    hook.reply = policy;
  });

  it("a request the webhook has no opinion on is 403 with upstream's message and the webhook's reason", async () => {
    const r = await req(s, "GET", "/api/v1/namespaces/kube-system/pods", { creds: s.as("tok-bob") });
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "kube-system": not mine');
    expect((await req(s, "GET", "/api/v1/namespaces/default/pods", { creds: s.as("tok-bob") })).status).toBe(200);
    const sel = await req(s, "GET", "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb", { creds: s.as("tok-bob") });
    expect(sel.status).toBe(200);
    expect(hook.requests.at(-1)!.spec.resourceAttributes).toEqual({ namespace: "default", verb: "list", version: "v1", resource: "pods", labelSelector: { requirements: [{ key: "app", operator: "In", values: ["web"] }] } });
  });

  it("system:masters never reaches the webhook", async () => {
    const before = hook.requests.length;
    expect((await req(s, "GET", "/api/v1/namespaces/default/secrets")).status).toBe(200);
    expect(hook.requests.length).toBe(before);
  });

  it("apply that creates needs create too (403 names the object); patch alone is enough for an existing one", async () => {
    const apply = (ns: string) =>
      req(s, "PATCH", `/api/v1/namespaces/${ns}/configmaps/cm1?fieldManager=carol`, {
        creds: s.as("tok-carol"),
        headers: { "content-type": "application/apply-patch+yaml" },
        body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm1" }, data: { a: "1" } }),
      });
    const r = await apply("default");
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('configmaps "cm1" is forbidden: not mine');
    expect((await req(s, "GET", "/api/v1/namespaces/default/configmaps/cm1")).status).toBe(404);
    await req(s, "POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "open" } } });
    expect((await apply("open")).status).toBe(201);
    expect((await req(s, "POST", "/api/v1/namespaces/default/configmaps", { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm1" } } })).status).toBe(201);
    expect((await apply("default")).status).toBe(200);
  });

  it("PUT that creates (services allow it) needs create", async () => {
    const r = await req(s, "PUT", "/api/v1/namespaces/default/serviceaccounts/sa1", { creds: s.as("tok-bob"), body: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "sa1" } } });
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('serviceaccounts "sa1" is forbidden: User "bob" cannot update resource "serviceaccounts" in API group "" in the namespace "default": not mine');
  });

  it("decisions are counted on /metrics", async () => {
    const m = await req(s, "GET", "/metrics");
    expect(m.body.toString()).toMatch(/apiserver_authorization_decisions_total\{decision="allowed",name="default",type="Webhook"\} \d+/);
    expect(m.body.toString()).toMatch(/apiserver_authorization_webhook_evaluations_total\{name="default",result="success"\} \d+/);
  });
});

describe("--authorization-config reloaded while serving", () => {
  let dir: string;
  let hook: SarWebhook;
  let s: TestServer;
  let file: string;
  const hookEntry = (failurePolicy: string, extra = "") => `- type: Webhook
  name: hook
  webhook:
    timeout: 2s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: ${failurePolicy}
    authorizedTTL: 1ms
    unauthorizedTTL: 1ms
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ${hook.kubeconfigPath}
    matchConditions:
    - expression: "!('system:serviceaccounts' in request.groups)"${extra}
`;
  const doc = (...authorizers: string[]) => `apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n${authorizers.join("")}`;
  const alwaysDeny = "- type: AlwaysDeny\n  name: alwaysdeny\n";
  const alwaysAllow = "- type: AlwaysAllow\n  name: alwaysallow\n";
  const status = async (token: string) => (await req(s, "GET", "/api/v1/namespaces/default/configmaps", { creds: s.as(token) })).status;
  // The server's log, heard as it comes: each reload of the file, or its refusal, is announced there once done.
  const log = new Heard<string>();
  const reloads = (n: number) => log.until(`${n} reloads`, (ls) => ls.filter((l) => l === "kapi: reloaded authorization config").length >= n);
  const refusals = (n: number) => log.until(`${n} refused reloads`, (ls) => ls.filter((l) => l.startsWith("kapi: reloading authorization config: ")).length >= n);
  const metric = async (re: RegExp) => Number(re.exec((await req(s, "GET", "/metrics")).body.toString())?.[1] ?? 0);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-authz-config-"));
    hook = await startSarWebhook(dir);
    hook.reply = policy;
    const tokens = join(dir, "tokens.csv");
    writeFileSync(tokens, "tok-alice,alice,u1\ntok-bob,bob,u2\n");
    file = join(dir, "authz.yaml");
    writeFileSync(file, doc(hookEntry("NoOpinion"), alwaysDeny));
    s = await startTestServer({ storage: "memory", options: { tokenAuthFile: tokens, authorizationConfig: file, log: log.push } });
  });
  afterAll(async () => {
    await s?.stop();
    await hook?.close();
  });

  it("the file's chain decides; a change takes effect; a broken file keeps the previous one; reloads are counted", async () => {
    expect(await status("tok-alice")).toBe(200); // webhook allows
    expect(await status("tok-bob")).toBe(403); // webhook: no opinion → AlwaysDeny
    const ok = /apiserver_authorization_config_controller_automatic_reloads_total\{apiserver_id_hash="sha256:[0-9a-f]+",status="success"\} (\d+)/;
    const bad = /apiserver_authorization_config_controller_automatic_reloads_total\{apiserver_id_hash="sha256:[0-9a-f]+",status="failure"\} (\d+)/;

    writeFileSync(file, doc(hookEntry("NoOpinion"), alwaysAllow));
    await reloads(1);
    expect(await status("tok-bob")).toBe(200);
    expect(await metric(ok)).toBe(1);
    expect((await req(s, "GET", "/metrics")).body.toString()).toMatch(/apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds\{apiserver_id_hash="sha256:[0-9a-f]+",status="success"\} \d/);

    writeFileSync(file, doc(hookEntry("NoOpinion").replace("timeout: 2s", "timeout: 90s"), alwaysDeny));
    await refusals(1);
    expect(await metric(bad)).toBe(1);
    expect(await status("tok-bob")).toBe(200); // previous configuration kept

    writeFileSync(file, "not: [valid");
    await refusals(2);
    expect(await metric(bad)).toBe(2);
    expect(await status("tok-bob")).toBe(200);
  });

  it("failurePolicy: Deny stops the chain when the webhook fails (500, as upstream); NoOpinion falls through", async () => {
    hook.reply = () => ({ status: 400, body: "down" }); // not retried (a 500 would be, with backoff)
    writeFileSync(file, doc(hookEntry("Deny"), alwaysAllow));
    // Deny with the webhook's error: upstream's filter answers 500 with the error.
    await reloads(2);
    expect(await status("tok-alice")).toBe(500);
    const r = await req(s, "GET", "/api/v1/namespaces/default/configmaps", { creds: s.as("tok-alice") });
    expect(r.json).toMatchObject({ reason: "InternalError", message: expect.stringMatching(/^Internal error occurred: /) });
    writeFileSync(file, doc(hookEntry("NoOpinion"), alwaysAllow));
    await reloads(3);
    expect(await status("tok-alice")).toBe(200);
    expect((await req(s, "GET", "/metrics")).body.toString()).toMatch(/apiserver_authorization_webhook_evaluations_fail_open_total\{name="hook",result="error"\} \d+/);
    hook.reply = policy;
  });

  it("start-up refuses --authorization-config together with --authorization-mode, and a bad file", async () => {
    await expect(startTestServer({ storage: "memory", options: { authorizationConfig: file, authorizationMode: ["RBAC"] } })).rejects.toThrow(
      "--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined",
    );
    const broken = join(dir, "broken.yaml");
    writeFileSync(broken, doc(hookEntry("Maybe")));
    await expect(startTestServer({ storage: "memory", options: { authorizationConfig: broken } })).rejects.toThrow('authorizers[0].failurePolicy: Unsupported value: "Maybe": supported values: "NoOpinion", "Deny"');
  });
});

describe("--authorization-config: match conditions over the whole request, errors as upstream", () => {
  let dir: string;
  let hook: SarWebhook;
  let s: TestServer;
  let file: string;
  let tokenKc: string;
  // Guarded for non-resource requests; a cluster-scoped request's namespace is "" (not a missing key).
  const teamOnly = 'has(request.resourceAttributes) && request.resourceAttributes.namespace.startsWith(\'team-\')';
  const unguarded = "request.resourceAttributes.namespace.startsWith('team-')";
  const config = (failurePolicy: string, expression: string) => `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: teams
  webhook:
    timeout: 2s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: ${failurePolicy}
    authorizedTTL: 1ms
    unauthorizedTTL: 1ms
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ${hook.kubeconfigPath}
    matchConditions:
    - expression: "${expression}"
- type: RBAC
  name: rbac
`;
  // The server's log, heard as it comes: a reload is announced there once it took effect.
  const log = new Heard<string>();
  let reloaded = 0;
  const reload = async (text: string) => {
    writeFileSync(file, text);
    const n = ++reloaded;
    await log.until(`reload ${n}`, (ls) => ls.filter((l) => l === "kapi: reloaded authorization config").length >= n);
  };
  const get = (path: string) => req(s, "GET", path, { creds: s.as("tok-dana") });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-authz-match-"));
    hook = await startSarWebhook(dir);
    hook.reply = () => ({ allowed: false, denied: true, reason: "team namespaces belong to the teams webhook" });
    const tokens = join(dir, "tokens.csv");
    writeFileSync(tokens, "tok-dana,dana,u4\n");
    file = join(dir, "authz.yaml");
    writeFileSync(file, config("Deny", teamOnly));
    s = await startTestServer({ storage: "memory", options: { tokenAuthFile: tokens, authorizationConfig: file, log: log.push } });
    await req(s, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", {
      body: { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "reader" }, rules: [{ apiGroups: [""], resources: ["nodes", "configmaps"], verbs: ["get", "list"] }] },
    });
    await req(s, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
      body: {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: "dana-reader" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "reader" },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "dana" }],
      },
    });
    tokenKc = tokenKubeconfig(s, dir);
  });
  afterAll(async () => {
    await s?.stop();
    await hook?.close();
  });

  it.skipIf(!bin)("a cluster-scoped request's namespace is \"\": the condition is false, the webhook skipped, RBAC allows (failurePolicy Deny)", async () => {
    const r = await kubectl(bin!, tokenKc, ["--token", "tok-dana", "get", "nodes", "-o", "name"]);
    expect(r.stderr).not.toMatch(/InternalError|Internal error/);
    expect(r.code).toBe(0);
    expect(hook.requests.length).toBe(0);
    // Where the condition holds the webhook is asked, and its Deny stands over RBAC.
    const team = await kubectl(bin!, tokenKc, ["--token", "tok-dana", "get", "configmaps", "-n", "team-a"]);
    expect(team.code).toBe(1);
    expect(team.stderr).toContain('configmaps is forbidden: User "dana" cannot list resource "configmaps" in API group "" in the namespace "team-a": team namespaces belong to the teams webhook');
    expect(hook.requests.at(-1)!.spec).toMatchObject({ user: "dana", resourceAttributes: { namespace: "team-a", verb: "list", resource: "configmaps" } });
  });

  it("a condition that errs: Deny → 500 with the error; NoOpinion → on to RBAC, which allows, or, if nothing allows, 500", async () => {
    await reload(config("Deny", unguarded));
    const denied = await get("/apis");
    expect(denied.status).toBe(500);
    expect(denied.json).toMatchObject({
      kind: "Status",
      reason: "InternalError",
      code: 500,
      message: `Internal error occurred: cel evaluation error: expression '${unguarded}' resulted in error: no such key: resourceAttributes`,
    });
    // A resource request still evaluates (to false) and RBAC decides.
    expect((await get("/api/v1/nodes")).status).toBe(200);

    await reload(config("NoOpinion", unguarded));
    expect((await get("/apis")).status).toBe(200); // RBAC's system:discovery
    const nobody = await get("/metrics"); // RBAC has no opinion either: the error makes it a 500, not a 403
    expect(nobody.status).toBe(500);
    expect(nobody.json.message).toMatch(/^Internal error occurred: cel evaluation error: /);
    expect(hook.requests.length).toBe(1);
  });
});

describe("ABAC start-up", () => {
  it("a policy file with a bad line is a start-up error naming the line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-abac-"));
    const p = join(dir, "policy.jsonl");
    writeFileSync(p, '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"alice","namespace":"*","resource":"*","apiGroup":"*"}}\n{oops\n');
    await expect(startTestServer({ storage: "memory", options: { authorizationMode: ["ABAC"], authorizationPolicyFile: p } })).rejects.toThrow(`error reading policy file ${p}, line 2: {oops: `);
  });

  it("ABAC decides for token users", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-abac-"));
    const p = join(dir, "policy.jsonl");
    writeFileSync(p, '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"alice","namespace":"default","resource":"configmaps","apiGroup":"","readonly":true}}\n');
    const tokens = join(dir, "tokens.csv");
    writeFileSync(tokens, "tok-alice,alice,u1\n");
    const s = await startTestServer({ storage: "memory", options: { tokenAuthFile: tokens, authorizationMode: ["ABAC"], authorizationPolicyFile: p } });
    try {
      expect((await req(s, "GET", "/api/v1/namespaces/default/configmaps", { creds: s.as("tok-alice") })).status).toBe(200);
      const w = await req(s, "POST", "/api/v1/namespaces/default/configmaps", { creds: s.as("tok-alice"), body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } } });
      expect(w.status).toBe(403);
      expect(w.json.message).toBe('configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "default": No policy matched.');
    } finally {
      await s.stop();
    }
  });
});
