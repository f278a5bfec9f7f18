// The RBAC bootstrap policy against a real kapi (--authorization-mode=RBAC): a fresh server has
// every default object (kubectl, by label); unauthenticated and authenticated users reach exactly
// what upstream's bindings give them (system:public-info-viewer, system:discovery,
// system:basic-user); a restart restores what was taken from the defaults, keeps what was added,
// leaves autoupdate=false objects alone, and writes nothing when nothing is missing.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrapPolicy } from "../src/authz/bootstrap-policy/index.js";
import { req, startTestServer, type EmbeddedTestServer, type TestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const g = "rbac.authorization.k8s.io";
const path = (r: string, name = "", ns = "") => `/apis/${g}/v1/${ns ? `namespaces/${ns}/` : ""}${r}${name ? `/${name}` : ""}`;
const policy = bootstrapPolicy();

describe("RBAC bootstrap policy on a real server", () => {
  let dir: string;
  let s: EmbeddedTestServer;
  const bin = kubectlBinary(33);
  const start = async () =>
    (s = await startTestServer({ dataDir: join(dir, "data"), options: { authorizationMode: ["RBAC"], tokenAuthFile: join(dir, "tokens.csv"), shutdownDelayMs: 0 } }));
  const get = async (p: string) => {
    const r = await req(s, "GET", p);
    if (r.status !== 200) throw new Error(`GET ${p}: ${r.status} ${r.text}`);
    return r.json;
  };
  const put = async (p: string, body: unknown) => {
    const r = await req(s, "PUT", p, { body });
    if (r.status !== 200) throw new Error(`PUT ${p}: ${r.status} ${r.text}`);
    return r.json;
  };
  const rvs = async () => {
    const out: Record<string, string> = {};
    for (const r of ["clusterroles", "clusterrolebindings", "roles", "rolebindings"]) {
      for (const o of (await get(`${path(r)}?labelSelector=kubernetes.io/bootstrapping%3Drbac-defaults`)).items) {
        out[`${r}/${o.metadata.namespace ?? ""}/${o.metadata.name}`] = o.metadata.resourceVersion;
      }
    }
    return out;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-bootstrap-policy-"));
    writeFileSync(join(dir, "tokens.csv"), "alice-token,alice,uid-1\n");
    await start();
  });
  afterAll(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(!bin)("kubectl lists every default object by the bootstrapping label", async () => {
    const names = async (args: string[]) => {
      const r = await kubectl(bin!, s.kubeconfigPath!, [...args, "-l", "kubernetes.io/bootstrapping=rbac-defaults", "-o", "name"]);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.trim().split("\n").sort();
    };
    const pre = (kind: string, objs: { metadata: { name?: string } }[]) => objs.map((o) => `${kind}.rbac.authorization.k8s.io/${o.metadata.name}`).sort();
    expect(await names(["get", "clusterroles"])).toEqual(pre("clusterrole", policy.clusterRoles));
    expect(await names(["get", "clusterrolebindings"])).toEqual(pre("clusterrolebinding", policy.clusterRoleBindings));
    expect((await names(["get", "roles", "-A"])).length).toBe(policy.roles.length);
    expect((await names(["get", "rolebindings", "-n", "kube-public"]))).toEqual(["rolebinding.rbac.authorization.k8s.io/system:controller:bootstrap-signer"]);
    const basic = await kubectl(bin!, s.kubeconfigPath!, ["get", "clusterrole", "system:basic-user", "-o", "json"]);
    const obj = JSON.parse(basic.stdout);
    expect(obj.metadata.annotations).toEqual({ "rbac.authorization.kubernetes.io/autoupdate": "true" });
    expect(obj.rules).toEqual(policy.clusterRoles.find((r) => r.metadata.name === "system:basic-user")!.rules);
  });

  it("unauthenticated: health and /version only, as system:public-info-viewer allows", async () => {
    for (const p of ["/version", "/healthz", "/readyz", "/livez"]) expect((await req(s, "GET", p, { creds: s.anonymous })).status, p).toBe(200);
    // system:discovery and system:basic-user are bound to system:authenticated only (since 1.14)
    for (const p of ["/api", "/apis", "/api/v1", "/openapi/v2", "/api/v1/namespaces", "/metrics", "/readyz/etcd"]) {
      const r = await req(s, "GET", p, { creds: s.anonymous });
      expect(r.status, p).toBe(403);
    }
    const r = await req(s, "GET", "/api/v1/namespaces", { creds: s.anonymous });
    expect(r.json.message).toBe(`namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope`);
  });

  it("authenticated: discovery and the self reviews, nothing else", async () => {
    const alice = s.as("alice-token");
    for (const p of ["/version", "/healthz", "/api", "/apis", "/api/v1", "/apis/apps/v1"]) expect((await req(s, "GET", p, { creds: alice })).status, p).toBe(200);
    expect((await req(s, "GET", "/api/v1/namespaces", { creds: alice })).status).toBe(403);
    expect((await req(s, "GET", "/metrics", { creds: alice })).status).toBe(403);
    const review = await req(s, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
      creds: alice, body: { apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectAccessReview", spec: { nonResourceAttributes: { path: "/apis", verb: "get" } } },
    });
    expect(review.status).toBe(201);
    expect(review.json.status.allowed).toBe(true);
    const who = await req(s, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", { creds: alice, body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" } });
    expect(who.status).toBe(201);
  });

  it("system:masters: a rules review lists what RBAC grants (cluster-admin plus the authenticated bindings), complete", async () => {
    const r = await req(s, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", { body: { apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectRulesReview", spec: { namespace: "default" } } });
    expect(r.status).toBe(201);
    expect(r.json.status.incomplete).toBe(false);
    expect(r.json.status.resourceRules).toContainEqual({ verbs: ["*"], apiGroups: ["*"], resources: ["*"] });
    expect(r.json.status.resourceRules).toContainEqual({ verbs: ["create"], apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"] });
    expect(r.json.status.nonResourceRules).toContainEqual({ verbs: ["*"], nonResourceURLs: ["*"] });
    expect(r.json.status.nonResourceRules).toContainEqual({ verbs: ["get"], nonResourceURLs: ["/healthz", "/livez", "/readyz", "/version", "/version/"] });
  });

  it.skipIf(!bin)("kubectl auth can-i --list as the admin prints upstream's table", async () => {
    const r = await kubectl(bin!, s.kubeconfigPath!, ["auth", "can-i", "--list"]);
    expect(r.code, r.stderr).toBe(0);
    // As a 1.34 cluster prints it: the discovery and public-info rules overlap, so some rows repeat.
    expect(r.stdout).toBe(
      [
        "Resources                                       Non-Resource URLs   Resource Names   Verbs",
        "*.*                                             []                  []               [*]",
        "                                                [*]                 []               [*]",
        "selfsubjectreviews.authentication.k8s.io        []                  []               [create]",
        "selfsubjectaccessreviews.authorization.k8s.io   []                  []               [create]",
        "selfsubjectrulesreviews.authorization.k8s.io    []                  []               [create]",
        "                                                [/api/*]            []               [get]",
        "                                                [/api]              []               [get]",
        "                                                [/apis/*]           []               [get]",
        "                                                [/apis]             []               [get]",
        "                                                [/healthz]          []               [get]",
        "                                                [/healthz]          []               [get]",
        "                                                [/livez]            []               [get]",
        "                                                [/livez]            []               [get]",
        "                                                [/openapi/*]        []               [get]",
        "                                                [/openapi]          []               [get]",
        "                                                [/readyz]           []               [get]",
        "                                                [/readyz]           []               [get]",
        "                                                [/version/]         []               [get]",
        "                                                [/version/]         []               [get]",
        "                                                [/version]          []               [get]",
        "                                                [/version]          []               [get]",
        "",
      ].join("\n"),
    );
  });

  it("a restart restores missing rules and subjects, keeps extras, respects autoupdate=false, recreates deleted objects", async () => {
    const basic = await get(path("clusterroles", "system:basic-user"));
    basic.rules = [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }];
    await put(path("clusterroles", "system:basic-user"), basic);
    const monitoring = await get(path("clusterroles", "system:monitoring"));
    monitoring.metadata.annotations["rbac.authorization.kubernetes.io/autoupdate"] = "false";
    monitoring.rules = [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }];
    await put(path("clusterroles", "system:monitoring"), monitoring);
    const piv = await get(path("clusterrolebindings", "system:public-info-viewer"));
    piv.subjects = [{ apiGroup: g, kind: "User", name: "carol" }];
    await put(path("clusterrolebindings", "system:public-info-viewer"), piv);
    const admin = await get(path("clusterroles", "admin"));
    delete admin.aggregationRule;
    await put(path("clusterroles", "admin"), admin);
    expect((await req(s, "DELETE", path("roles", "system:controller:token-cleaner", "kube-system"))).status).toBe(200);
    expect((await req(s, "DELETE", path("clusterrolebindings", "system:discovery"))).status).toBe(200);
    await s.stop();
    await start();

    const basic2 = await get(path("clusterroles", "system:basic-user"));
    expect(basic2.rules[0]).toEqual({ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] });
    expect(basic2.rules.slice(1)).toEqual([
      { apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectaccessreviews"], verbs: ["create"] },
      { apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectrulesreviews"], verbs: ["create"] },
      { apiGroups: ["authentication.k8s.io"], resources: ["selfsubjectreviews"], verbs: ["create"] },
    ]);
    expect((await get(path("clusterroles", "system:monitoring"))).rules).toEqual([{ nonResourceURLs: ["/metrics"], verbs: ["get"] }]);
    expect((await get(path("clusterrolebindings", "system:public-info-viewer"))).subjects).toEqual([
      { apiGroup: g, kind: "User", name: "carol" },
      { apiGroup: g, kind: "Group", name: "system:authenticated" },
      { apiGroup: g, kind: "Group", name: "system:unauthenticated" },
    ]);
    expect((await get(path("clusterroles", "admin"))).aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { [`${g}/aggregate-to-admin`]: "true" } }] });
    expect((await get(path("roles", "system:controller:token-cleaner", "kube-system"))).rules).toHaveLength(2);
    expect((await get(path("clusterrolebindings", "system:discovery"))).subjects).toEqual([{ apiGroup: g, kind: "Group", name: "system:authenticated" }]);
    expect((await req(s, "GET", "/version", { creds: s.anonymous })).status).toBe(200);
  });

  it("a restart with nothing missing writes nothing", async () => {
    await s.settle(); // the aggregation controller has written what it writes
    const before = await rvs();
    await s.stop();
    await start();
    await s.settle(); // a controller that wrote after the restart would have written by now
    expect(await rvs()).toEqual(before);
  });
});
