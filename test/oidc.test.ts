// OIDC / JWT authentication against a real kapi and a loopback OpenID provider (HTTPS with its
// own CA, discovery, JWKS, RSA and EC keys), with real clients: kubectl --token and
// `kubectl auth whoami`, the Python client, @kubernetes/client-node; the configuration file
// reloaded while the server runs; the --oidc-* flags.
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestIssuer, type TestIssuer } from "../src/authn/jwt-authenticator/issuer.testkit.js";
import { req, startTestServer, type TestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { Heard } from "./support/heard.js";

const whoami = (s: TestServer, token: string) =>
  req(s, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", { body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }, creds: s.as(token) });

const indent = (text: string, n: number) => text.split("\n").map((l) => (l ? " ".repeat(n) + l : l)).join("\n");

function configFile(issuer: TestIssuer, usernameExpression: string): string {
  return `apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${issuer.url}
    audiences: [kapi]
    certificateAuthority: |
${indent(issuer.caPem.trim(), 6)}
  claimValidationRules:
  - expression: 'claims.?tenant.orValue("") != "blocked"'
    message: tenant is blocked
  claimMappings:
    username:
      expression: '${usernameExpression}'
    groups:
      expression: 'has(claims.roles) ? claims.roles : []'
    uid:
      claim: sub
    extra:
    - key: example.org/tenant
      valueExpression: 'claims.?tenant.orValue("")'
  userValidationRules:
  - expression: '!user.username.contains("root")'
    message: no root users
`;
}

/** A kubeconfig with the server and its CA only: the token comes from --token (no client certificate to win first). */
function tokenlessKubeconfig(s: TestServer, dir: string): string {
  const path = join(dir, "oidc.kubeconfig");
  writeFileSync(
    path,
    `apiVersion: v1
kind: Config
clusters:
- name: kapi
  cluster:
    server: ${s.url}
    certificate-authority-data: ${Buffer.from(s.admin.ca).toString("base64")}
users:
- name: nobody
  user: {}
contexts:
- name: kapi
  context: {cluster: kapi, user: nobody}
current-context: kapi
`,
  );
  return path;
}

describe("structured authentication configuration with a loopback OIDC issuer", () => {
  let issuer: TestIssuer;
  let s: TestServer;
  let dir: string;
  let file: string;
  let kubeconfigPath: string;
  // The server's log, heard as it comes: a reload announces itself there once it took effect.
  const log = new Heard<string>();
  const logs = log.items;

  beforeAll(async () => {
    issuer = await startTestIssuer();
    dir = mkdtempSync(join(tmpdir(), "kapi-oidc-"));
    file = join(dir, "authn.yaml");
    writeFileSync(file, configFile(issuer, '"oidc:" + claims.sub'));
    s = await startTestServer({ storage: "memory", options: { authenticationConfig: file, log: log.push, authenticationConfigReloadPollMs: 250 } as never });
    kubeconfigPath = tokenlessKubeconfig(s, dir);
  });
  afterAll(async () => {
    await s?.stop();
    await issuer?.close();
  });

  it("maps RSA and EC tokens to the user, groups, uid and extra (SelfSubjectReview)", async () => {
    for (const key of [issuer.keys.rsa, issuer.keys.ec]) {
      const r = await whoami(s, issuer.token({ sub: `ann-${key.kid}`, roles: ["dev", "ops"], tenant: "t1" }, { key }));
      expect(r.status).toBe(201);
      expect(r.json.status.userInfo).toEqual({
        username: `oidc:ann-${key.kid}`,
        uid: `ann-${key.kid}`,
        groups: ["dev", "ops", "system:authenticated"],
        extra: { "example.org/tenant": ["t1"] },
      });
    }
  });

  it("answers 401 for bad tokens, never 500 and never anonymous", async () => {
    const now = Math.floor(Date.now() / 1000);
    const bad = [
      issuer.token({ sub: "a", exp: now - 60 }),
      issuer.token({ sub: "a", aud: "nope" }),
      issuer.token({ sub: "a", tenant: "blocked" }),
      issuer.token({ sub: "root" }),
      issuer.token({ sub: "a" }).replace(/\.[^.]*$/, ".AAAA"),
      `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(JSON.stringify({ iss: issuer.url, aud: "kapi", sub: "a", exp: now + 60 })).toString("base64url")}.`,
      issuer.rawToken({ alg: "ES256", kid: "rsa-1" }, { iss: issuer.url, aud: "kapi", sub: "a", exp: now + 60 }, issuer.keys.ec.privateKey),
      `${Buffer.from(JSON.stringify({ alg: "RS256", kid: "x".repeat(4000) })).toString("base64url")}.${Buffer.from(JSON.stringify({ iss: issuer.url, pad: "y".repeat(4000) })).toString("base64url")}.AAAA`,
    ];
    for (const t of bad) {
      const r = await whoami(s, t);
      expect(r.status, t.slice(0, 60)).toBe(401);
      expect(r.json).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
    }
  });

  it("kubectl --token: auth whoami shows the mapped user; requests are served", async () => {
    const bin = kubectlBinary(33);
    if (!bin) return;
    const token = issuer.token({ sub: "kube", roles: ["viewers"], tenant: "acme" }, { key: issuer.keys.ec });
    const who = await kubectl(bin, kubeconfigPath, ["auth", "whoami", "--token", token, "-o", "json"]);
    expect(who.code, who.stderr).toBe(0);
    expect(JSON.parse(who.stdout).status.userInfo).toEqual({ username: "oidc:kube", uid: "kube", groups: ["viewers", "system:authenticated"], extra: { "example.org/tenant": ["acme"] } });
    const plain = await kubectl(bin, kubeconfigPath, ["auth", "whoami", "--token", token]);
    expect(plain.stdout).toMatch(/oidc:kube/);
    expect(plain.stdout).toMatch(/example\.org\/tenant/);
    const ns = await kubectl(bin, kubeconfigPath, ["get", "namespaces", "--token", token, "-o", "name"]);
    expect(ns.stdout).toMatch(/namespace\/default/);
    const denied = await kubectl(bin, kubeconfigPath, ["get", "namespaces", "--token", issuer.token({ sub: "kube", aud: "other" })]);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/Unauthorized|must be logged in/);
  });

  it("the Python client with the token", async () => {
    const token = issuer.token({ sub: "py", roles: ["snakes"] });
    const script = `
import json, sys
from kubernetes import client
c = client.Configuration()
c.host = sys.argv[1]
c.ssl_ca_cert = sys.argv[2]
c.api_key = {"authorization": "Bearer " + sys.argv[3]}
api = client.ApiClient(c)
names = [n.metadata.name for n in client.CoreV1Api(api).list_namespace().items]
data = api.call_api("/apis/authentication.k8s.io/v1/selfsubjectreviews", "POST", body={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}, auth_settings=["BearerToken"], response_type="object", _return_http_data_only=True)
try:
    client.Configuration.set_default(None)
    c.api_key = {"authorization": "Bearer " + sys.argv[3][:-4] + "AAAA"}
    client.CoreV1Api(client.ApiClient(c)).list_namespace()
    status = 200
except client.rest.ApiException as e:
    status = e.status
print(json.dumps({"names": names, "user": data["status"]["userInfo"], "tampered": status}))
`;
    const caFile = join(dir, "ca.crt");
    writeFileSync(caFile, s.admin.ca);
    const out = await new Promise<string>((resolve, reject) =>
      execFile("/usr/bin/python3", ["-c", script, s.url, caFile, token], { timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))),
    );
    const r = JSON.parse(out);
    expect(r.names).toContain("default");
    expect(r.user).toEqual({ username: "oidc:py", uid: "py", groups: ["snakes", "system:authenticated"] });
    expect(r.tampered).toBe(401);
  });

  it("@kubernetes/client-node with the token", async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "kapi", server: s.url, caData: Buffer.from(s.admin.ca).toString("base64") }],
      users: [{ name: "oidc", token: issuer.token({ sub: "node", roles: ["js"] }, { key: issuer.keys.ec }) }],
      contexts: [{ name: "kapi", cluster: "kapi", user: "oidc" }],
      currentContext: "kapi",
    });
    const review = await kc.makeApiClient(k8s.AuthenticationV1Api).createSelfSubjectReview({ body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" } });
    expect(review.status?.userInfo).toEqual({ username: "oidc:node", uid: "node", groups: ["js", "system:authenticated"] });
    const list = await kc.makeApiClient(k8s.CoreV1Api).listNamespace();
    expect(list.items.map((n) => n.metadata?.name)).toContain("default");
  });

  it("reloads the file: a new mapping takes effect; a broken file keeps the old one; metrics tell", async () => {
    const token = issuer.token({ sub: "re", tenant: "t" });
    expect((await whoami(s, token)).json.status.userInfo.username).toBe("oidc:re");

    writeFileSync(file, configFile(issuer, '"v2:" + claims.sub'));
    await log.some("the reload", (l) => l.includes("reloaded authentication config"), 15_000);
    expect((await whoami(s, token)).json.status.userInfo.username).toBe("v2:re");

    // Invalid (claims.email without claims.email_verified): logged, old mapping kept.
    writeFileSync(file, configFile(issuer, "claims.email"));
    await log.some("the refused reload", (l) => l.includes("failed to validate authentication config") && l.includes("claims.email_verified must be used"), 15_000);
    expect((await whoami(s, token)).json.status.userInfo.username).toBe("v2:re");

    // Not even YAML: logged, old mapping kept.
    writeFileSync(file, "jwt: [unclosed");
    await log.some("the failed load", (l) => l.includes("failed to load authentication config"), 15_000);
    expect((await whoami(s, token)).json.status.userInfo.username).toBe("v2:re");

    const metrics = (await req(s, "GET", "/metrics")).text;
    expect(metrics).toMatch(/apiserver_authentication_config_controller_automatic_reloads_total\{apiserver_id_hash="sha256:[0-9a-f]{64}",status="success"\} 1/);
    expect(metrics).toMatch(/apiserver_authentication_config_controller_automatic_reloads_total\{apiserver_id_hash="sha256:[0-9a-f]{64}",status="failure"\} 2/);
    expect(metrics).toMatch(/apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds\{apiserver_id_hash="sha256:[0-9a-f]{64}",status="success"\} \d/);
    expect(metrics).toMatch(/apiserver_authentication_config_controller_last_config_info\{apiserver_id_hash="sha256:[0-9a-f]{64}",hash="sha256:[0-9a-f]{64}"\} 1/);
  });
});

describe("--oidc-* flags", () => {
  let issuer: TestIssuer;
  let s: TestServer;
  let dir: string;
  beforeAll(async () => {
    issuer = await startTestIssuer();
    dir = mkdtempSync(join(tmpdir(), "kapi-oidc-flags-"));
    const ca = join(dir, "oidc-ca.crt");
    writeFileSync(ca, issuer.caPem);
    s = await startTestServer({
      storage: "memory",
      options: { oidcIssuerURL: issuer.url, oidcClientID: "kapi", oidcCAFile: ca, oidcGroupsClaim: "groups", oidcGroupsPrefix: "oidc:", oidcRequiredClaims: { hd: "example.com" }, oidcFlagsSet: true },
    });
  });
  afterAll(async () => {
    await s?.stop();
    await issuer?.close();
  });

  it("prefixes non-email usernames with the issuer URL#, and groups with the groups prefix", async () => {
    const r = await whoami(s, issuer.token({ sub: "ann", groups: ["dev"], hd: "example.com" }));
    expect(r.json.status.userInfo).toEqual({ username: `${issuer.url}#ann`, groups: ["oidc:dev", "system:authenticated"] });
  });

  it("allows only RS256 by default, and enforces the required claim", async () => {
    expect((await whoami(s, issuer.token({ sub: "ann", hd: "example.com" }, { key: issuer.keys.ec }))).status).toBe(401);
    expect((await whoami(s, issuer.token({ sub: "ann", hd: "other.com" }))).status).toBe(401);
  });
});
