// Token webhook, authenticating proxy, client certificate refusals and TokenReview against a real
// kapi, with kubectl, the Python client and raw HTTPS (HTTP/1.1 and HTTP/2).
import { execFile, spawnSync } from "node:child_process";
import { connect as h2connect } from "node:http2";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { daysFromNow, makeCert, type TestCert } from "../src/authn/pki.testkit.js";
import { startTokenReviewWebhook, type TokenReviewWebhook } from "../src/authn/webhook/server.testkit.js";
import { req, startTestServer, type Credentials, type TestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const kubectlBin = kubectlBinary(33);
const python = "/usr/bin/python3";
const hasPython = spawnSync(python, ["-c", "import kubernetes"], { timeout: 30_000 }).status === 0;

const ssr = { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" };
const whoami = (s: TestServer, creds: Credentials, headers: Record<string, string | string[]> = {}) =>
  req(s, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", { body: ssr, creds, headers: headers as Record<string, string> });

const b64 = (s: string) => Buffer.from(s).toString("base64");
function kubeconfig(s: TestServer, user: Record<string, string>): string {
  const u = Object.entries(user).map(([k, v]) => `    ${k}: ${JSON.stringify(v)}`);
  return ["apiVersion: v1", "kind: Config", "clusters:", "- name: kapi", "  cluster:", `    server: ${s.url}`, `    certificate-authority-data: ${b64(s.admin.ca)}`, "users:", "- name: u", "  user:", ...u, "contexts:", "- name: c", "  context: {cluster: kapi, user: u}", "current-context: c", ""].join("\n");
}

describe("token webhook, authenticating proxy and client certificates (real server)", () => {
  let dir: string;
  let s: TestServer;
  let hook: TokenReviewWebhook;
  let proxyCA: TestCert, proxy: TestCert, otherProxy: TestCert, userCA: TestCert, expired: TestCert, serverUsage: TestCert, foreign: TestCert, foreignLeaf: TestCert, carol: TestCert;
  let kc: (name: string, user: Record<string, string>) => string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-authn-int-"));
    hook = await startTokenReviewWebhook(dir);
    hook.answers.set("webhook-token", { authenticated: true, user: { username: "wanda", uid: "w-1", groups: ["devs"], extra: { "example.com/team": ["blue"] } } });
    hook.answers.set("expired-token", { authenticated: false, error: "token has expired" });
    hook.answers.set("aud-token", { authenticated: true, user: { username: "audrey" }, audiences: ["vault"] });
    proxyCA = await makeCert({ commonName: "front-proxy-ca" });
    proxy = await makeCert({ commonName: "front-proxy-client", issuer: proxyCA });
    otherProxy = await makeCert({ commonName: "not-the-proxy", issuer: proxyCA });
    userCA = await makeCert({ commonName: "users-ca" });
    carol = await makeCert({ commonName: "carol", organizations: ["qa", "ops"], issuer: userCA });
    expired = await makeCert({ commonName: "old-carol", issuer: userCA, notBefore: daysFromNow(-10), notAfter: daysFromNow(-1) });
    serverUsage = await makeCert({ commonName: "srv", issuer: userCA, usage: "server" });
    foreign = await makeCert({ commonName: "foreign-ca" });
    foreignLeaf = await makeCert({ commonName: "mallory", organizations: ["system:masters"], issuer: foreign });
    writeFileSync(join(dir, "front-proxy-ca.crt"), proxyCA.certPem);
    const other = await makeCert({ commonName: "second-users-ca" });
    writeFileSync(join(dir, "client-ca.crt"), other.certPem + userCA.certPem); // several CAs in one file
    writeFileSync(join(dir, "tokens.csv"), "static-token,sam,s-1,\"g1,g2\"\n");
    s = await startTestServer({
      dataDir: join(dir, "data"),
      options: {
        clientCAFile: join(dir, "client-ca.crt"),
        tokenAuthFile: join(dir, "tokens.csv"),
        authenticationTokenWebhookConfigFile: hook.kubeconfigPath,
        authenticationTokenWebhookVersion: "v1",
        requestheaderClientCAFile: join(dir, "front-proxy-ca.crt"),
        requestheaderAllowedNames: ["front-proxy-client"],
        requestheaderUsernameHeaders: ["X-Remote-User"],
        requestheaderUIDHeaders: ["X-Remote-Uid"],
        requestheaderGroupHeaders: ["X-Remote-Group"],
        requestheaderExtraHeadersPrefix: ["X-Remote-Extra-"],
      },
    });
    kc = (name, user) => {
      const p = join(dir, `${name}.kubeconfig`);
      writeFileSync(p, kubeconfig(s, user));
      return p;
    };
  }, 120_000);
  afterAll(async () => {
    await s?.stop();
    await hook?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const proxyCreds = (c: TestCert = proxy): Credentials => ({ ca: s.admin.ca, cert: c.certPem, key: c.keyPem });

  describe("token webhook", () => {
    it("authenticates a bearer token through the webhook (raw HTTPS)", async () => {
      const r = await whoami(s, s.as("webhook-token"));
      expect(r.status).toBe(201);
      expect(r.json.status.userInfo).toEqual({ username: "wanda", uid: "w-1", groups: ["devs", "system:authenticated"], extra: { "example.com/team": ["blue"] } });
      expect(hook.requests.some((q) => q.apiVersion === "authentication.k8s.io/v1" && q.spec.token === "webhook-token")).toBe(true);
    });

    it("answers 401 for a token the webhook refuses, never anonymous", async () => {
      for (const t of ["expired-token", "unknown-token"]) {
        const r = await whoami(s, s.as(t));
        expect(r.status).toBe(401);
        expect(r.json).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 });
      }
    });

    it.skipIf(!kubectlBin)("kubectl --token … auth whoami", async () => {
      const path = kc("empty", {});
      const r = await kubectl(kubectlBin!, path, ["--token", "webhook-token", "auth", "whoami", "-o", "json"]);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).status.userInfo).toEqual({ username: "wanda", uid: "w-1", groups: ["devs", "system:authenticated"], extra: { "example.com/team": ["blue"] } });
      const bad = await kubectl(kubectlBin!, path, ["--token", "expired-token", "auth", "whoami"]);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain("Unauthorized");
      const stat = await kubectl(kubectlBin!, path, ["--token", "static-token", "auth", "whoami", "-o", "json"]);
      expect(JSON.parse(stat.stdout).status.userInfo).toEqual({ username: "sam", uid: "s-1", groups: ["g1", "g2", "system:authenticated"] });
    });
  });

  describe("authenticating proxy", () => {
    it("trusts the identity headers on the front proxy's certificate (HTTP/1.1, repeated headers kept apart)", async () => {
      const r = await whoami(s, proxyCreds(), { "X-Remote-User": "alice", "x-remote-uid": "a-1", "X-Remote-Group": ["team-a", "team-b"], "X-Remote-Extra-Scopes": ["read", "write"], "X-Remote-Extra-Example.com%2fKey": "v" } as never);
      expect(r.status).toBe(201);
      expect(r.json.status.userInfo).toEqual({ username: "alice", uid: "a-1", groups: ["team-a", "team-b", "system:authenticated"], extra: { scopes: ["read", "write"], "example.com/key": ["v"] } });
    });

    it("the same over HTTP/2", async () => {
      const session = h2connect(s.url, { ca: s.admin.ca, cert: proxy.certPem, key: proxy.keyPem });
      try {
        const body = await new Promise<any>((resolve, reject) => {
          const st = session.request({ ":method": "POST", ":path": "/apis/authentication.k8s.io/v1/selfsubjectreviews", "content-type": "application/json", "x-remote-user": "bob", "x-remote-group": ["g1", "g2"] });
          let t = "";
          st.on("data", (c) => (t += c));
          st.on("end", () => resolve(JSON.parse(t)));
          st.on("error", reject);
          st.end(JSON.stringify(ssr));
        });
        expect(body.status.userInfo).toEqual({ username: "bob", groups: ["g1", "g2", "system:authenticated"] });
      } finally {
        session.close();
      }
    });

    it("ignores the headers without the proxy certificate (admin cert, token, anonymous)", async () => {
      const h = { "X-Remote-User": "root", "X-Remote-Group": "system:masters", "X-Remote-Extra-Scopes": "all" };
      expect((await whoami(s, s.admin, h)).json.status.userInfo).toEqual({ username: "kapi-admin", groups: ["system:masters", "system:authenticated"] });
      expect((await whoami(s, s.as("webhook-token"), h)).json.status.userInfo.username).toBe("wanda");
      expect((await whoami(s, s.anonymous, h)).json.status.userInfo).toEqual({ username: "system:anonymous", groups: ["system:unauthenticated"] });
    });

    it("refuses a proxy certificate whose CN is not allowed (401)", async () => {
      const r = await whoami(s, proxyCreds(otherProxy), { "X-Remote-User": "root" });
      expect(r.status).toBe(401);
    });
  });

  describe("client certificates", () => {
    it("CN → user, each O → a group, from the second CA of --client-ca-file", async () => {
      const r = await whoami(s, { ca: s.admin.ca, cert: carol.certPem, key: carol.keyPem });
      expect(r.json.status.userInfo).toEqual({ username: "carol", groups: ["qa", "ops", "system:authenticated"] });
    });

    it("a certificate that does not verify is a 401, not anonymous (raw HTTPS)", async () => {
      for (const c of [foreignLeaf, expired, serverUsage]) {
        const r = await whoami(s, { ca: s.admin.ca, cert: c.certPem, key: c.keyPem });
        expect(r.status, c.cert.subject).toBe(401);
        expect(r.json).toMatchObject({ kind: "Status", reason: "Unauthorized", message: "Unauthorized", code: 401 });
      }
      // A valid token on the same connection still authenticates (the first success decides).
      const r = await whoami(s, { ca: s.admin.ca, cert: foreignLeaf.certPem, key: foreignLeaf.keyPem, token: "webhook-token" });
      expect(r.json.status.userInfo.username).toBe("wanda");
    });

    it.skipIf(!kubectlBin)("kubectl with an expired client certificate gets 401", async () => {
      const path = kc("expired", { "client-certificate-data": b64(expired.certPem), "client-key-data": b64(expired.keyPem) });
      const r = await kubectl(kubectlBin!, path, ["auth", "whoami"]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain("Unauthorized");
      const ok = await kubectl(kubectlBin!, kc("carol", { "client-certificate-data": b64(carol.certPem), "client-key-data": b64(carol.keyPem) }), ["auth", "whoami", "-o", "json"]);
      expect(JSON.parse(ok.stdout).status.userInfo.username).toBe("carol");
    });
  });

  describe("TokenReview", () => {
    const review = (token: string, audiences?: string[]) => ({ apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token, ...(audiences ? { audiences } : {}) } });

    it("answers from the token methods only (webhook, static), with audiences", async () => {
      const post = (b: unknown) => req(s, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", { body: b });
      const ok = await post(review("webhook-token"));
      expect(ok.status).toBe(201);
      // No spec.audiences: the review is made for the API audiences (the service-account issuer), and says so.
      expect(ok.json.status).toEqual({
        authenticated: true,
        user: { username: "wanda", uid: "w-1", groups: ["devs", "system:authenticated"], extra: { "example.com/team": ["blue"] } },
        audiences: ["https://kubernetes.default.svc.cluster.local"],
      });
      expect(ok.json.spec.token).toBe("webhook-token");
      expect((await post(review("static-token"))).json.status.user).toEqual({ username: "sam", uid: "s-1", groups: ["g1", "g2", "system:authenticated"] });
      expect((await post(review("expired-token"))).json.status).toEqual({ user: {}, error: "token has expired" });
      expect((await post(review("nobody"))).json.status).toEqual({ user: {}, error: "invalid bearer token" });
      const aud = await post(review("aud-token", ["vault", "other"]));
      expect(aud.json.status).toEqual({ authenticated: true, user: { username: "audrey", groups: ["system:authenticated"] }, audiences: ["vault"] });
      expect(hook.requests.filter((q) => q.spec.token === "aud-token").pop()!.spec.audiences).toEqual(["vault", "other"]);
      expect((await post(review("aud-token", ["nope"]))).json.status).toEqual({ user: {}, error: "invalid bearer token" });
      const none = await post({ apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: {} });
      expect(none.status).toBe(400);
      expect(none.json.message).toBe("token is required for TokenReview in authentication");
    });

    it.skipIf(!kubectlBin)("kubectl create -f", async () => {
      const r = await kubectl(kubectlBin!, s.kubeconfigPath!, ["create", "--validate=false", "-f", "-", "-o", "json"], JSON.stringify(review("webhook-token")));
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).status).toMatchObject({ authenticated: true, user: { username: "wanda" } });
    });

    it.skipIf(!hasPython)("python client create_token_review", async () => {
      const code = [
        "import json, sys",
        "from kubernetes import client, config",
        "config.load_kube_config(sys.argv[1])",
        "api = client.AuthenticationV1Api()",
        "out = {}",
        "for t, auds in [('webhook-token', None), ('aud-token', ['vault']), ('nobody', None)]:",
        "    r = api.create_token_review(client.V1TokenReview(spec=client.V1TokenReviewSpec(token=t, audiences=auds)))",
        "    out[t] = client.ApiClient().sanitize_for_serialization(r.status)",
        "print(json.dumps(out))",
      ].join("\n");
      const stdout = await new Promise<string>((resolve, reject) =>
        execFile(python, ["-c", code, s.kubeconfigPath!], { timeout: 60_000 }, (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(String(out)))),
      );
      const out = JSON.parse(stdout.trim().split("\n").pop()!);
      expect(out["webhook-token"]).toMatchObject({ authenticated: true, user: { username: "wanda", uid: "w-1", groups: ["devs", "system:authenticated"], extra: { "example.com/team": ["blue"] } } });
      expect(out["aud-token"]).toMatchObject({ authenticated: true, audiences: ["vault"], user: { username: "audrey" } });
      expect(out["nobody"]).toMatchObject({ error: "invalid bearer token" });
    });
  });
});

describe("start-up errors of the new flags", () => {
  it("names the problem", async () => {
    await expect(startTestServer({ storage: "memory", options: { authenticationTokenWebhookConfigFile: "/nonexistent/kubeconfig" } })).rejects.toThrow("stat /nonexistent/kubeconfig: no such file or directory");
    await expect(startTestServer({ storage: "memory", options: { authenticationTokenWebhookVersion: "v2" } })).rejects.toThrow('unsupported authentication webhook version "v2"');
    await expect(startTestServer({ storage: "memory", options: { requestheaderGroupHeaders: [""] } })).rejects.toThrow('empty value in "requestheader-group-headers"');
    await expect(startTestServer({ storage: "memory", options: { requestheaderUIDHeaders: ["X-Remote-Uid"], featureGates: "RemoteRequestHeaderUID=false" } })).rejects.toThrow('--requestheader-uid-headers requires the "RemoteRequestHeaderUID" feature to be enabled');
  });
});
