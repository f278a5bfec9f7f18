// Authentication (x509, token file, anonymous and its path conditions) and the AlwaysAllow /
// AlwaysDeny modes, against real servers.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLeaf } from "../src/authn/certs.js";
import { req, startTestServer, type TestServer } from "./support/client.js";

const whoami = (s: TestServer, creds = s.admin) =>
  req(s, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", { body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }, creds });

describe("authentication with kube-apiserver defaults", () => {
  let s: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-auth-"));
    const tokens = join(dir, "tokens.csv");
    writeFileSync(tokens, 'tok-alice,alice,uid-1,"dev,ops"\ntok-bob,bob,uid-2\n');
    s = await startTestServer({ dataDir: join(dir, "data"), options: { tokenAuthFile: tokens } });
  });
  afterAll(async () => s?.stop());

  it("maps a client certificate's CN to the user and O to groups", async () => {
    const pki = join(dir, "data", "pki");
    const ca = { certPem: readFileSync(join(pki, "client-ca.crt"), "utf8"), keyPem: readFileSync(join(pki, "client-ca.key"), "utf8") };
    const jane = await createLeaf(ca, { commonName: "jane", organizations: ["team-a", "team-b"], usage: "client" });
    const r = await whoami(s, { ca: s.admin.ca, cert: jane.certPem, key: jane.keyPem });
    expect(r.json.status.userInfo).toEqual({ username: "jane", groups: ["team-a", "team-b", "system:authenticated"] });
  });

  it("authenticates static tokens with uid and groups", async () => {
    const r = await whoami(s, s.as("tok-alice"));
    expect(r.json.status.userInfo).toEqual({ username: "alice", uid: "uid-1", groups: ["dev", "ops", "system:authenticated"] });
    const b = await whoami(s, s.as("tok-bob"));
    expect(b.json.status.userInfo.groups).toEqual(["system:authenticated"]);
  });

  it("answers 401 for a bad token, never falling back to anonymous", async () => {
    const r = await whoami(s, s.as("nope"));
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
  });

  it("serves anonymous requests as system:anonymous", async () => {
    const r = await whoami(s, s.anonymous);
    expect(r.json.status.userInfo).toEqual({ username: "system:anonymous", groups: ["system:unauthenticated"] });
  });

  it("reuses generated certificates on restart", async () => {
    const before = readFileSync(join(dir, "data", "pki", "ca.crt"), "utf8");
    await s.stop();
    s = await startTestServer({ dataDir: join(dir, "data"), options: { tokenAuthFile: join(dir, "tokens.csv") } });
    expect(readFileSync(join(dir, "data", "pki", "ca.crt"), "utf8")).toBe(before);
    expect((await whoami(s)).status).toBe(201);
  });
});

describe("anonymous restricted by authentication config (npm start)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ storage: "memory", options: { authenticationConfig: "config/local-authentication.yaml" } });
  });
  afterAll(async () => s?.stop());

  it("lets anonymous reach only health and version", async () => {
    for (const p of ["/livez", "/readyz", "/healthz", "/version"]) expect((await req(s, "GET", p, { creds: s.anonymous })).status).toBe(200);
    expect((await req(s, "GET", "/readyz/ping", { creds: s.anonymous })).status).toBe(401);
    expect((await req(s, "GET", "/api/v1/namespaces", { creds: s.anonymous })).status).toBe(401);
    expect((await req(s, "GET", "/api", { creds: s.anonymous })).status).toBe(401);
    expect((await req(s, "GET", "/api/v1/namespaces")).status).toBe(200);
  });
});

describe("--anonymous-auth=false and AlwaysDeny", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ storage: "memory", options: { anonymousAuth: false, authorizationMode: ["AlwaysDeny"] } });
  });
  afterAll(async () => s?.stop());

  it("refuses anonymous with 401", async () => {
    expect((await req(s, "GET", "/version", { creds: s.anonymous })).status).toBe(401);
  });

  it("still serves system:masters (AlwaysDeny does not apply to them)", async () => {
    expect((await req(s, "GET", "/api/v1/namespaces")).status).toBe(200);
  });
});

describe("AlwaysDeny for a non-master user", () => {
  let s: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-deny-"));
    writeFileSync(join(dir, "t.csv"), "tok,carol,u3\n");
    s = await startTestServer({ storage: "memory", options: { tokenAuthFile: join(dir, "t.csv"), authorizationMode: ["AlwaysDeny"] } });
  });
  afterAll(async () => s?.stop());

  it("answers 403 with upstream's message", async () => {
    const r = await req(s, "GET", "/api/v1/namespaces/default/pods", { creds: s.as("tok") });
    expect(r.status).toBe(403);
    expect(r.json.reason).toBe("Forbidden");
    expect(r.json.message).toBe('pods is forbidden: User "carol" cannot list resource "pods" in API group "" in the namespace "default": Everything is forbidden.');
  });
});

describe("start-up errors", () => {
  it("refuses modes that are not built yet, unknown gates and bad runtime-config", async () => {
    await expect(startTestServer({ storage: "memory", options: { authorizationMode: ["ABAC"] } })).rejects.toThrow(/ABAC is not supported yet/);
    await expect(startTestServer({ storage: "memory", options: { featureGates: "NoSuchGate=true" } })).rejects.toThrow(/unrecognized feature gate: NoSuchGate/);
    await expect(startTestServer({ storage: "memory", options: { featureGates: "WatchList=maybe" } })).rejects.toThrow(/invalid value of WatchList=maybe/);
    await expect(startTestServer({ storage: "memory", options: { runtimeConfig: "nope.io/v1=false" } })).rejects.toThrow(/unknown api groupVersion/);
  });
});

describe("impersonation", () => {
  let s: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-imp-"));
    writeFileSync(join(dir, "t.csv"), "tok,dave,u4\n");
    s = await startTestServer({ storage: "memory", options: { tokenAuthFile: join(dir, "t.csv"), authorizationMode: ["AlwaysDeny"] } });
  });
  afterAll(async () => s?.stop());

  it("serves the request as the impersonated user when allowed", async () => {
    const r = await req(s, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
      body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
      // The admin may impersonate anyone; jane is made a master so AlwaysDeny lets her through.
      headers: { "impersonate-user": "jane", "impersonate-group": "system:masters", "impersonate-extra-scopes": "view" },
    });
    expect(r.status).toBe(201);
    expect(r.json.status.userInfo).toEqual({ username: "jane", groups: ["system:masters", "system:authenticated"], extra: { scopes: ["view"] } });
    const sa = await req(s, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
      body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
      headers: { "impersonate-user": "system:serviceaccount:default:robot" },
    });
    expect(sa.status).toBe(403); // the service account itself is denied by AlwaysDeny
    expect(sa.json.message).toContain('User "system:serviceaccount:default:robot" cannot create resource "selfsubjectreviews"');
  });

  it("is forbidden without the impersonate permission, and needs a user", async () => {
    const r = await req(s, "GET", "/api/v1/namespaces", { creds: s.as("tok"), headers: { "impersonate-user": "jane" } });
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('users "jane" is forbidden: User "dave" cannot impersonate resource "users" in API group "" at the cluster scope: Everything is forbidden.');
    const noUser = await req(s, "GET", "/api/v1/namespaces", { headers: { "impersonate-group": "devs" } });
    expect(noUser.status).toBe(400);
  });
});
