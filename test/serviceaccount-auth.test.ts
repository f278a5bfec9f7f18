// Service-account authentication against a real server: the default ServiceAccount of every
// namespace, TokenRequest through kubectl create token and the raw API (validation errors,
// bound objects), the token used by kubectl, the Python client and @kubernetes/client-node,
// bound-pod tokens rejected once the pod is gone, legacy Secret tokens, and OIDC discovery.
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as k8s from "@kubernetes/client-node";
import { req, startTestServer, type EmbeddedTestServer, type TestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { runKapi } from "./support/cli.js";
import { parseServeFlags } from "../src/cli/flags.js";

const bin = kubectlBinary(33);
const whoami = (s: TestServer, token: string) =>
  req(s, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", { body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }, creds: s.as(token) });
const tokenRequest = (s: TestServer, ns: string, sa: string, spec: Record<string, unknown>) =>
  req(s, "POST", `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`, { body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec } });
const claimsOf = (t: string) => JSON.parse(Buffer.from(t.split(".")[1], "base64url").toString("utf8"));

/** What `f` answers once the controllers (and the authenticator's informers) have settled; `ok` must hold then. */
async function whenSettled<T>(s: EmbeddedTestServer, f: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  await s.settle();
  const v = await f();
  expect(ok(v), "the settled state").toBe(true);
  return v;
}

describe("service accounts", () => {
  let s: EmbeddedTestServer;
  let dir: string;
  let kubeconfigPath: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-sa-"));
    s = await startTestServer({ dataDir: join(dir, "data"), options: { apiAudiences: ["https://kubernetes.default.svc.cluster.local", "api"] } });
    kubeconfigPath = join(dir, "admin.kubeconfig");
    writeFileSync(kubeconfigPath, s.kubeconfig);
    await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: "ns1" } } });
  });
  afterAll(async () => s?.stop());

  const defaultSa = (ns: string) => whenSettled(s, () => req(s, "GET", `/api/v1/namespaces/${ns}/serviceaccounts/default`), (r) => r.status === 200);

  it("gives every namespace a default ServiceAccount, made again when deleted", async () => {
    for (const ns of ["default", "kube-system", "ns1"]) expect((await defaultSa(ns)).status).toBe(200);
    const before = (await defaultSa("ns1")).json.metadata.uid;
    expect((await req(s, "DELETE", "/api/v1/namespaces/ns1/serviceaccounts/default")).status).toBe(200);
    const again = await whenSettled(s, () => req(s, "GET", "/api/v1/namespaces/ns1/serviceaccounts/default"), (r) => r.status === 200 && r.json.metadata.uid !== before);
    expect(again.status).toBe(200);
    expect(again.json.metadata.uid).not.toBe(before);
  });

  it("discovery declares serviceaccounts/token", async () => {
    const r = await req(s, "GET", "/api/v1");
    expect(r.json.resources.find((x: any) => x.name === "serviceaccounts/token")).toMatchObject({ kind: "TokenRequest", group: "authentication.k8s.io", version: "v1", verbs: ["create"] });
  });

  it.skipIf(!bin)("kubectl create token, then kubectl auth whoami --token", async () => {
    await defaultSa("ns1");
    const t = await kubectl(bin!, kubeconfigPath, ["create", "token", "default", "-n", "ns1", "--audience", "api", "--duration", "10m"]);
    expect(t.stderr).toBe("");
    const token = t.stdout.trim();
    const c = claimsOf(token);
    expect(c.aud).toEqual(["api"]);
    expect(c.exp - c.iat).toBe(600);
    expect(c.iss).toBe("https://kubernetes.default.svc.cluster.local");
    expect(c.sub).toBe("system:serviceaccount:ns1:default");
    // A kubeconfig with the server and its CA only: the token is the one credential.
    const bare = join(dir, "bare.kubeconfig");
    writeFileSync(bare, `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${s.url}\n    certificate-authority-data: ${Buffer.from(s.admin.ca).toString("base64")}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {}\n`);
    const w = await kubectl(bin!, bare, ["auth", "whoami", "--token", token, "-o", "json"]);
    expect(w.code).toBe(0);
    const info = JSON.parse(w.stdout).status.userInfo;
    expect(info.username).toBe("system:serviceaccount:ns1:default");
    expect(info.groups).toEqual(["system:serviceaccounts", "system:serviceaccounts:ns1", "system:authenticated"]);
    expect(info.extra["authentication.kubernetes.io/credential-id"]).toEqual([`JTI=${c.jti}`]);
  });

  it.skipIf(!bin)("a pod-bound token carries the pod and is rejected once the pod is gone", async () => {
    await defaultSa("ns1");
    const pod = await req(s, "POST", "/api/v1/namespaces/ns1/pods", { body: { metadata: { name: "p1" }, spec: { serviceAccountName: "default", containers: [{ name: "c", image: "busybox" }] } } });
    expect(pod.status).toBe(201);
    const t = await kubectl(bin!, kubeconfigPath, ["create", "token", "default", "-n", "ns1", "--bound-object-kind", "Pod", "--bound-object-name", "p1"]);
    expect(t.stderr).toBe("");
    const token = t.stdout.trim();
    expect(claimsOf(token)["kubernetes.io"].pod).toEqual({ name: "p1", uid: pod.json.metadata.uid });
    const ok = await whoami(s, token);
    expect(ok.status).toBe(201);
    expect(ok.json.status.userInfo.extra).toMatchObject({ "authentication.kubernetes.io/pod-name": ["p1"], "authentication.kubernetes.io/pod-uid": [pod.json.metadata.uid] });
    await req(s, "DELETE", "/api/v1/namespaces/ns1/pods/p1?gracePeriodSeconds=0");
    const after = await whenSettled(s, () => whoami(s, token), (r) => r.status === 401);
    expect(after.status).toBe(401);
    // A TokenReview says why.
    const review = await req(s, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", { body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } } });
    // `authenticated: false` is omitted, as Go's omitempty leaves it out.
    expect(review.json.status.authenticated).toBeUndefined();
    expect(review.json.status.error).toContain("service account token has been invalidated");
  });

  it("TokenRequest validation and bound object errors are upstream's", async () => {
    await defaultSa("ns1");
    const short = await tokenRequest(s, "ns1", "default", { expirationSeconds: 60 });
    expect(short.status).toBe(422);
    expect(short.json.message).toBe('TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes');
    const kind = await tokenRequest(s, "ns1", "default", { boundObjectRef: { kind: "ConfigMap", apiVersion: "v1", name: "x" } });
    expect(kind.status).toBe(400);
    expect(kind.json.message).toBe("cannot bind token to object of type /v1, Kind=ConfigMap");
    const missing = await tokenRequest(s, "ns1", "default", { boundObjectRef: { kind: "Secret", apiVersion: "v1", name: "nope" } });
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe('secrets "nope" not found');
    const nosa = await tokenRequest(s, "ns1", "ghost", {});
    expect(nosa.status).toBe(404);
    expect(nosa.json.message).toBe('serviceaccounts "ghost" not found');
    await req(s, "POST", "/api/v1/namespaces/ns1/secrets", { body: { metadata: { name: "bind-me" } } });
    const wrongUid = await tokenRequest(s, "ns1", "default", { boundObjectRef: { kind: "Secret", apiVersion: "v1", name: "bind-me", uid: "0000" } });
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.json.message).toContain("the UID in the bound object reference (0000) does not match the UID in record");
    const def = await tokenRequest(s, "ns1", "default", {});
    expect(def.status).toBe(201);
    expect(def.json.spec).toEqual({ audiences: ["https://kubernetes.default.svc.cluster.local", "api"], expirationSeconds: 3600 });
    expect(Date.parse(def.json.status.expirationTimestamp) - Date.parse(def.json.metadata.creationTimestamp)).toBe(3600_000);
    const header = JSON.parse(Buffer.from(def.json.status.token.split(".")[0], "base64url").toString());
    expect(header.alg).toBe("ES256");
    expect(typeof header.kid).toBe("string");
  });

  it("kubelet-style requests get an extended token with warnafter", async () => {
    await defaultSa("ns1");
    const pod = await req(s, "POST", "/api/v1/namespaces/ns1/pods", { body: { metadata: { name: "kubelet-pod" }, spec: { serviceAccountName: "default", containers: [{ name: "c", image: "busybox" }] } } });
    expect(pod.status).toBe(201);
    const r = await tokenRequest(s, "ns1", "default", { expirationSeconds: 3607, boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "kubelet-pod" } });
    expect(r.status).toBe(201);
    const c = claimsOf(r.json.status.token);
    expect(c.exp - c.iat).toBe(365 * 24 * 3600);
    expect(c["kubernetes.io"].warnafter - c.iat).toBe(3607);
    expect(r.json.spec.expirationSeconds).toBe(3607);
  });

  it("rejects a token for a ServiceAccount deleted and made again (uid mismatch)", async () => {
    await req(s, "POST", "/api/v1/namespaces/ns1/serviceaccounts", { body: { metadata: { name: "robot" } } });
    const token = (await tokenRequest(s, "ns1", "robot", {})).json.status.token;
    expect((await whoami(s, token)).status).toBe(201);
    await req(s, "DELETE", "/api/v1/namespaces/ns1/serviceaccounts/robot");
    await req(s, "POST", "/api/v1/namespaces/ns1/serviceaccounts", { body: { metadata: { name: "robot" } } });
    const r = await whenSettled(s, () => whoami(s, token), (x) => x.status === 401);
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
  });

  it("a wrong audience is 401; a TokenReview for that audience accepts it and names it", async () => {
    const token = (await tokenRequest(s, "ns1", "default", { audiences: ["elsewhere"] })).json.status.token;
    expect((await whoami(s, token)).status).toBe(401);
    const review = (audiences?: string[]) =>
      req(s, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", { body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token, ...(audiences ? { audiences } : {}) } } });
    const ok = (await review(["elsewhere", "other"])).json.status;
    expect(ok.authenticated).toBe(true);
    expect(ok.user.username).toBe("system:serviceaccount:ns1:default");
    expect(ok.audiences).toEqual(["elsewhere"]);
    const refused = (await review()).json.status;
    expect(refused.authenticated).toBeUndefined();
    expect(refused.error).toContain("is invalid for the target audiences");
  });

  it("fills legacy token Secrets, which authenticate, and deletes them with their ServiceAccount", async () => {
    await req(s, "POST", "/api/v1/namespaces/ns1/serviceaccounts", { body: { metadata: { name: "legacy" } } });
    const created = await req(s, "POST", "/api/v1/namespaces/ns1/secrets", {
      body: { metadata: { name: "legacy-token", annotations: { "kubernetes.io/service-account.name": "legacy" } }, type: "kubernetes.io/service-account-token" },
    });
    expect(created.status).toBe(201);
    const filled = await whenSettled(s, () => req(s, "GET", "/api/v1/namespaces/ns1/secrets/legacy-token"), (r) => Boolean(r.json.data?.token));
    const data = filled.json.data;
    expect(Buffer.from(data.namespace, "base64").toString()).toBe("ns1");
    expect(Buffer.from(data["ca.crt"], "base64").toString()).toContain("BEGIN CERTIFICATE");
    const token = Buffer.from(data.token, "base64").toString();
    const c = claimsOf(token);
    expect(c).toMatchObject({ iss: "kubernetes/serviceaccount", sub: "system:serviceaccount:ns1:legacy", "kubernetes.io/serviceaccount/secret.name": "legacy-token" });
    expect(filled.json.metadata.annotations["kubernetes.io/service-account.uid"]).toBe(c["kubernetes.io/serviceaccount/service-account.uid"]);
    const w = await whoami(s, token);
    expect(w.status).toBe(201);
    expect(w.json.status.userInfo).toMatchObject({ username: "system:serviceaccount:ns1:legacy", groups: ["system:serviceaccounts", "system:serviceaccounts:ns1", "system:authenticated"] });
    await req(s, "DELETE", "/api/v1/namespaces/ns1/serviceaccounts/legacy");
    const gone = await whenSettled(s, () => req(s, "GET", "/api/v1/namespaces/ns1/secrets/legacy-token"), (r) => r.status === 404);
    expect(gone.status).toBe(404);
    expect((await whoami(s, token)).status).toBe(401);
  });

  /** A ServiceAccount with a filled legacy token Secret, and kubectl as that token. */
  async function legacyTokenUser(saName: string) {
    await req(s, "POST", "/api/v1/namespaces/ns1/serviceaccounts", { body: { metadata: { name: saName } } });
    await req(s, "POST", "/api/v1/namespaces/ns1/secrets", {
      body: { metadata: { name: `${saName}-token`, annotations: { "kubernetes.io/service-account.name": saName } }, type: "kubernetes.io/service-account-token" },
    });
    const filled = await whenSettled(s, () => req(s, "GET", `/api/v1/namespaces/ns1/secrets/${saName}-token`), (r) => Boolean(r.json.data?.token));
    const token = Buffer.from(filled.json.data.token, "base64").toString();
    const kubeconfig = join(dir, `${saName}.kubeconfig`);
    writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${s.url}\n    certificate-authority-data: ${Buffer.from(s.admin.ca).toString("base64")}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: ${token}}\n`);
    return { token, secret: filled.json, whoami: () => kubectl(bin!, kubeconfig, ["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"]) };
  }

  it.skipIf(!bin)("a legacy token is refused while its Secret is labelled kubernetes.io/legacy-token-invalid-since", async () => {
    const u = await legacyTokenUser("revoked");
    expect(await u.whoami()).toMatchObject({ code: 0, stdout: "system:serviceaccount:ns1:revoked" });
    const label = await kubectl(bin!, kubeconfigPath, ["label", "secret", "revoked-token", "-n", "ns1", "kubernetes.io/legacy-token-invalid-since=2025-01-01"]);
    expect(label.stderr).toBe("");
    const refused = await u.whoami();
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("Unauthorized");
    const review = await req(s, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", { body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: u.token } } });
    expect(review.json.status.error).toContain(
      "the token in secret ns1/revoked-token for service account ns1/revoked has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the 'kubernetes.io/legacy-token-invalid-since' label from the secret to temporarily allow use of this token",
    );
    // Removing the label lets it in again.
    expect((await kubectl(bin!, kubeconfigPath, ["label", "secret", "revoked-token", "-n", "ns1", "kubernetes.io/legacy-token-invalid-since-"])).stderr).toBe("");
    expect(await u.whoami()).toMatchObject({ code: 0, stdout: "system:serviceaccount:ns1:revoked" });
  });

  it.skipIf(!bin)("a legacy token's use stamps kubernetes.io/legacy-token-last-used; one the ServiceAccount lists warns", async () => {
    const u = await legacyTokenUser("tracked");
    expect(u.secret.metadata.labels?.["kubernetes.io/legacy-token-last-used"]).toBeUndefined();
    expect(await u.whoami()).toMatchObject({ code: 0, stdout: "system:serviceaccount:ns1:tracked", stderr: "" });
    const stamped = (await req(s, "GET", "/api/v1/namespaces/ns1/secrets/tracked-token")).json;
    expect(stamped.metadata.labels["kubernetes.io/legacy-token-last-used"]).toBe(new Date().toISOString().slice(0, 10));
    expect(stamped.metadata.managedFields.map((f: { manager: string }) => f.manager)).toContain("kube-apiserver");
    // Listed in the ServiceAccount's secrets, as token controllers before 1.24 did: an auto-generated token.
    await req(s, "PATCH", "/api/v1/namespaces/ns1/serviceaccounts/tracked", { body: { secrets: [{ name: "tracked-token" }] }, headers: { "content-type": "application/merge-patch+json" } });
    const listed = await u.whoami();
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain("Warning: Use tokens from the TokenRequest API or manually created secret-based tokens instead of auto-generated secret-based tokens.");
  });

  it.skipIf(!bin)("keeps kube-system/kube-apiserver-legacy-service-account-token-tracking with a valid since date", async () => {
    const path = "/api/v1/namespaces/kube-system/configmaps/kube-apiserver-legacy-service-account-token-tracking";
    const today = new Date().toISOString().slice(0, 10);
    const made = await whenSettled(s, () => req(s, "GET", path), (r) => r.status === 200);
    expect(made.json.data).toEqual({ since: today });
    const broken = await kubectl(bin!, kubeconfigPath, ["patch", "configmap", "kube-apiserver-legacy-service-account-token-tracking", "-n", "kube-system", "--type=merge", "-p", '{"data":{"since":"last tuesday"}}']);
    expect(broken.stderr).toBe("");
    const fixed = await whenSettled(s, () => req(s, "GET", path), (r) => r.json.data?.since === today);
    expect(fixed.json.data.since).toBe(today);
    // Deleted, it is made again only once half an hour has passed since the last creation.
    expect((await req(s, "DELETE", path)).status).toBe(200);
    await s.settle(); // had the controller made it again, it would be there now
    expect((await req(s, "GET", path)).status).toBe(404);
  });

  it("serves the issuer's OIDC discovery documents", async () => {
    const cfg = await req(s, "GET", "/.well-known/openid-configuration");
    expect(cfg.status).toBe(200);
    expect(cfg.headers["content-type"]).toBe("application/json");
    expect(cfg.json).toEqual({
      issuer: "https://kubernetes.default.svc.cluster.local",
      jwks_uri: `https://${new URL(s.url).host}/openid/v1/jwks`,
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["ES256"],
    });
    const jwks = await req(s, "GET", "/openid/v1/jwks");
    expect(jwks.headers["content-type"]).toBe("application/jwk-set+json");
    expect(jwks.json.keys).toHaveLength(1);
    expect(jwks.json.keys[0]).toMatchObject({ use: "sig", kty: "EC", crv: "P-256", alg: "ES256" });
    const token = (await tokenRequest(s, "default", "default", {})).json.status.token;
    expect(JSON.parse(Buffer.from(token.split(".")[0], "base64url").toString()).kid).toBe(jwks.json.keys[0].kid);
  });

  it("@kubernetes/client-node with a service-account token", async () => {
    await defaultSa("ns1");
    const token = (await tokenRequest(s, "ns1", "default", {})).json.status.token;
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "c", server: s.url, caData: Buffer.from(s.admin.ca).toString("base64") }],
      users: [{ name: "u", token }],
      contexts: [{ name: "x", cluster: "c", user: "u" }],
      currentContext: "x",
    });
    const api = kc.makeApiClient(k8s.AuthenticationV1Api);
    const r = await api.createSelfSubjectReview({ body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" } });
    expect(r.status?.userInfo?.username).toBe("system:serviceaccount:ns1:default");
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const sas = await core.listNamespacedServiceAccount({ namespace: "ns1" });
    expect(sas.items.map((x) => x.metadata?.name)).toContain("default");
  });

  it("the Python client with a service-account token", async () => {
    await defaultSa("ns1");
    const token = (await tokenRequest(s, "ns1", "default", {})).json.status.token;
    const caFile = join(dir, "ca.crt");
    writeFileSync(caFile, s.admin.ca);
    const script = [
      "import sys, kubernetes.client as k",
      "c = k.Configuration(); c.host = sys.argv[1]; c.ssl_ca_cert = sys.argv[2]",
      "c.api_key = {'authorization': 'Bearer ' + sys.argv[3]}",
      "api = k.ApiClient(c)",
      "names = [x.metadata.name for x in k.CoreV1Api(api).list_namespaced_service_account('ns1').items]",
      "assert 'default' in names, names",
      "r = api.call_api('/apis/authentication.k8s.io/v1/selfsubjectreviews', 'POST', body={'apiVersion': 'authentication.k8s.io/v1', 'kind': 'SelfSubjectReview'}, response_type='object', auth_settings=['BearerToken'], _return_http_data_only=True)",
      "u = r['status']['userInfo']",
      "print(u['username'], ','.join(u['groups']))",
    ].join("\n");
    const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile("/usr/bin/python3", ["-c", script, s.url, caFile, token], { timeout: 60_000 }, (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout: String(stdout), stderr: String(stderr) })),
    );
    expect(out.stderr).toBe("");
    expect(out.stdout.trim()).toBe("system:serviceaccount:ns1:default system:serviceaccounts,system:serviceaccounts:ns1,system:authenticated");
  });
});

describe("service-account flags", () => {
  it("refuses what kube-apiserver refuses, with its messages", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-sa-flags-"));
    const start = (options: Record<string, unknown>) => startTestServer({ storage: "memory", options });
    await expect(start({ serviceAccountIssuers: ["a", "a"] })).rejects.toThrow('service-account-issuer "a" is already specified');
    await expect(start({ serviceAccountIssuers: [""] })).rejects.toThrow("service-account-issuer should not be an empty string");
    await expect(start({ serviceAccountMaxTokenExpirationSeconds: 60 })).rejects.toThrow("the service-account-max-token-expiration must be between 1 hour and 2^32 seconds");
    await expect(start({ serviceAccountIssuers: ["http://[::1]:namedport"] })).rejects.toThrow(`service-account-issuer "http://[::1]:namedport" contained a ':' but was not a valid URL: parse "http://[::1]:namedport": invalid port ":namedport" after host`);
    await expect(start({ serviceAccountKeyFiles: [join(dir, "missing.pem")] })).rejects.toThrow(/failed to parse key file/);
  });
});

describe("service-account flags on the command line", () => {
  it("parses the repeatable and list flags", () => {
    const o = parseServeFlags([
      "--service-account-key-file=a.pem",
      "--service-account-key-file",
      "b.pem",
      "--service-account-signing-key-file=s.pem",
      "--service-account-issuer=https://one",
      "--service-account-issuer=https://two",
      "--api-audiences=x,y",
      "--api-audiences=z",
      "--service-account-lookup=false",
      "--service-account-max-token-expiration=2h",
      "--service-account-extend-token-expiration=false",
    ]);
    expect(o).toMatchObject({
      serviceAccountKeyFiles: ["a.pem", "b.pem"],
      serviceAccountSigningKeyFile: "s.pem",
      serviceAccountIssuers: ["https://one", "https://two"],
      apiAudiences: ["x", "y", "z"],
      serviceAccountLookup: false,
      serviceAccountMaxTokenExpirationSeconds: 7200,
      serviceAccountExtendTokenExpiration: false,
    });
    expect(parseServeFlags([])).toMatchObject({ serviceAccountLookup: true, serviceAccountExtendTokenExpiration: true, serviceAccountIssuers: [], apiAudiences: [] });
  });

  it("kapi serve refuses a bad max expiration with kube-apiserver's message", async () => {
    const r = await runKapi(["serve", "--storage-backend=memory", "--secure-port=0", `--data-dir=${mkdtempSync(join(tmpdir(), "kapi-sa-cli-"))}`, "--service-account-max-token-expiration=1m"]);
    expect(r.stderr).toContain("the service-account-max-token-expiration must be between 1 hour and 2^32 seconds");
  });
});
