// RBAC against a real kapi (--authorization-mode=RBAC, users from --token-auth-file): the
// escalation matrix, the aggregation controller, malformed roles and bindings, the access
// reviews, and kubectl 1.33's `auth can-i` (incl. --list, --as, --as-group, -n) and
// `auth reconcile`. The policy is the test's own (t-edit ≈ edit plus writing roles and
// bindings so that the guard, not the authorization filter, is what refuses; t-admin = t-edit +
// reading secrets), so it does not depend on the bootstrap policy.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const g = "rbac.authorization.k8s.io";
const rbac = (r: string, ns = "") => `/apis/${g}/v1/${ns ? `namespaces/${ns}/` : ""}${r}`;
const editRules = [
  { apiGroups: [""], resources: ["pods", "configmaps", "services"], verbs: ["get", "list", "watch", "create", "update", "patch", "delete"] },
  { apiGroups: ["apps"], resources: ["deployments"], verbs: ["get", "list", "watch", "create", "update", "patch", "delete"] },
  { apiGroups: [g], resources: ["roles", "rolebindings"], verbs: ["get", "list", "create", "update", "delete"] },
];
const adminRules = [...editRules, { apiGroups: [""], resources: ["secrets"], verbs: ["get", "list"] }];
const U = (name: string) => ({ kind: "User", apiGroup: g, name });
const clusterRole = (name: string, rules: object[], extra: object = {}) => ({ apiVersion: `${g}/v1`, kind: "ClusterRole", metadata: { name }, rules, ...extra });
const roleBinding = (ns: string, name: string, kind: string, role: string, subjects: object[]) => ({
  apiVersion: `${g}/v1`, kind: "RoleBinding", metadata: { name, namespace: ns }, roleRef: { apiGroup: g, kind, name: role }, subjects,
});

describe("RBAC with real clients", () => {
  let s: EmbeddedTestServer;
  let dir: string;
  let tokenKubeconfig: string;
  const bin = kubectlBinary(33);
  const tok = (user: string) => s.as(`${user}-token`);
  const post = async (path: string, body: unknown, creds = s.admin) => req(s, "POST", path, { body, creds });
  const mustPost = async (path: string, body: unknown) => {
    const r = await post(path, body);
    if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
    return r.json;
  };
  const k = (args: string[], stdin?: string) => kubectl(bin!, s.kubeconfigPath!, args, stdin);
  const kt = (user: string, args: string[]) => kubectl(bin!, tokenKubeconfig, ["--token", `${user}-token`, ...args]);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kapi-rbac-"));
    const users = ["alice", "bob", "carol", "dave", "erin"];
    writeFileSync(join(dir, "tokens.csv"), users.map((u, i) => `${u}-token,${u},uid-${i}${u === "erin" ? ',"viewers"' : ""}`).join("\n") + "\n");
    s = await startTestServer({ dataDir: join(dir, "data"), options: { authorizationMode: ["RBAC"], tokenAuthFile: join(dir, "tokens.csv") } });
    const kc = parse(s.kubeconfig);
    kc.users = [{ name: "nobody", user: {} }];
    kc.contexts = [{ name: "token", context: { cluster: kc.clusters[0].name, user: "nobody" } }];
    kc["current-context"] = "token";
    tokenKubeconfig = join(dir, "token.kubeconfig");
    writeFileSync(tokenKubeconfig, stringify(kc));

    await mustPost("/api/v1/namespaces", { metadata: { name: "team" } });
    // What every authenticated user needs for kubectl: discovery and the self reviews.
    await mustPost(rbac("clusterroles"), clusterRole("t-basic", [
      { nonResourceURLs: ["/api", "/api/*", "/apis", "/apis/*", "/version", "/openapi/*"], verbs: ["get"] },
      { apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"], verbs: ["create"] },
    ]));
    await mustPost(rbac("clusterrolebindings"), { metadata: { name: "t-basic" }, roleRef: { apiGroup: g, kind: "ClusterRole", name: "t-basic" }, subjects: [{ kind: "Group", apiGroup: g, name: "system:authenticated" }] });
    await mustPost(rbac("clusterroles"), clusterRole("t-edit", editRules));
    await mustPost(rbac("clusterroles"), clusterRole("t-admin", adminRules));
    await mustPost(rbac("clusterroles"), clusterRole("t-view", [{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] }]));
    for (const u of ["alice", "bob", "carol"]) await mustPost(rbac("rolebindings", "team"), roleBinding("team", `${u}-edit`, "ClusterRole", "t-edit", [U(u)]));
    await mustPost(rbac("roles", "team"), { metadata: { name: "binder" }, rules: [{ apiGroups: [g], resources: ["clusterroles"], resourceNames: ["t-admin"], verbs: ["bind"] }] });
    await mustPost(rbac("rolebindings", "team"), roleBinding("team", "bob-binder", "Role", "binder", [U("bob")]));
    await mustPost(rbac("roles", "team"), { metadata: { name: "escalator" }, rules: [{ apiGroups: [g], resources: ["roles"], verbs: ["escalate"] }] });
    await mustPost(rbac("rolebindings", "team"), roleBinding("team", "carol-escalator", "Role", "escalator", [U("carol")]));
    await mustPost(rbac("rolebindings", "team"), roleBinding("team", "viewers", "ClusterRole", "t-view", [{ kind: "Group", apiGroup: g, name: "viewers" }]));
    // The index follows the informers: settled, every binding is in effect.
    await s.settle();
    expect((await req(s, "GET", "/api/v1/namespaces/team/pods", { creds: tok("erin") })).status).toBe(200);
  });
  afterAll(async () => s?.stop());

  describe("authorization of requests", () => {
    it("allows what is bound, in the binding's namespace only; 403 with upstream's text otherwise", async () => {
      expect((await req(s, "GET", "/api/v1/namespaces/team/pods", { creds: tok("alice") })).status).toBe(200);
      const other = await req(s, "GET", "/api/v1/namespaces/default/pods", { creds: tok("alice") });
      expect(other.status).toBe(403);
      expect(other.json.message).toBe('pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"');
      expect((await req(s, "GET", "/api/v1/namespaces/team/secrets", { creds: tok("alice") })).status).toBe(403);
      expect((await req(s, "GET", "/api/v1/namespaces/team/pods", { creds: tok("dave") })).status).toBe(403);
    });
  });

  describe("escalation guard", () => {
    it("a user with edit cannot bind admin: 403 listing what is missing", async () => {
      const r = await post(rbac("rolebindings", "team"), roleBinding("team", "alice-admin", "ClusterRole", "t-admin", [U("alice")]), tok("alice"));
      expect(r.status).toBe(403);
      expect(r.json).toMatchObject({ reason: "Forbidden", details: { name: "alice-admin", group: g, kind: "rolebindings" } });
      expect(r.json.message).toBe(
        'rolebindings.rbac.authorization.k8s.io "alice-admin" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
          '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
      );
      // …but may bind what she holds herself
      expect((await post(rbac("rolebindings", "team"), roleBinding("team", "dave-edit", "ClusterRole", "t-edit", [U("dave")]), tok("alice"))).status).toBe(201);
      // …and a dry run is checked the same way
      const dry = await req(s, "POST", `${rbac("rolebindings", "team")}?dryRun=All`, { body: roleBinding("team", "x", "ClusterRole", "t-admin", [U("alice")]), creds: tok("alice") });
      expect(dry.status).toBe(403);
    });

    it("with bind on that role it can", async () => {
      expect((await post(rbac("rolebindings", "team"), roleBinding("team", "bob-admin", "ClusterRole", "t-admin", [U("bob")]), tok("bob"))).status).toBe(201);
      // bind is per role name: another role still needs its permissions
      await mustPost(rbac("clusterroles"), clusterRole("t-secrets", [{ apiGroups: [""], resources: ["secrets"], verbs: ["delete"] }]));
      const r = await post(rbac("rolebindings", "team"), roleBinding("team", "bob-secrets", "ClusterRole", "t-secrets", [U("bob")]), tok("bob"));
      expect(r.status).toBe(403);
    });

    it("writing a role needs its permissions at that scope, or escalate", async () => {
      const role = (name: string) => ({ metadata: { name }, rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }, { apiGroups: [""], resources: ["pods"], verbs: ["get"] }] });
      const a = await post(rbac("roles", "team"), role("reader"), tok("alice"));
      expect(a.status).toBe(403);
      expect(a.json.message).toBe(
        'roles.rbac.authorization.k8s.io "reader" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
          '{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}',
      );
      expect((await post(rbac("roles", "team"), role("reader"), tok("carol"))).status).toBe(201);
      // within her own permissions alice may write roles; widening one on update is refused
      const mine = await post(rbac("roles", "team"), { metadata: { name: "pods-only" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }] }, tok("alice"));
      expect(mine.status).toBe(201);
      const upd = await req(s, "PUT", `${rbac("roles", "team")}/pods-only`, { body: { ...mine.json, rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }] }, creds: tok("alice") });
      expect(upd.status).toBe(403);
      expect(upd.json.message).toMatch(/^roles\.rbac\.authorization\.k8s\.io "pods-only" is forbidden: user "alice" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}$/);
    });

    it("a binding to a role that does not exist is refused naming it", async () => {
      const r = await post(rbac("rolebindings", "team"), roleBinding("team", "ghost", "ClusterRole", "no-such-role", [U("alice")]), tok("alice"));
      expect(r.status).toBe(403);
      expect(r.json.message).toBe('rolebindings.rbac.authorization.k8s.io "ghost" is forbidden: clusterroles.rbac.authorization.k8s.io "no-such-role" not found');
    });

    it("system:masters bypasses it", async () => {
      expect((await post(rbac("rolebindings", "team"), roleBinding("team", "admin-made", "ClusterRole", "no-such-role", [U("zed")]))).status).toBe(201);
      // the dangling binding shows in zed's no-opinion reason, as upstream's rule resolver reports it
      const sar = await post("/apis/authorization.k8s.io/v1/subjectaccessreviews", { spec: { user: "zed", resourceAttributes: { namespace: "team", verb: "get", resource: "pods" } } });
      expect(sar.json.status).toEqual({ allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "no-such-role" not found' });
      // …and as the evaluationError of zed's rules review (through impersonation)
      const ssrr = await req(s, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", { body: { spec: { namespace: "team" } }, headers: { "Impersonate-User": "zed" } });
      expect(ssrr.status).toBe(201);
      expect(ssrr.json).toMatchObject({ kind: "SelfSubjectRulesReview", apiVersion: "authorization.k8s.io/v1", spec: {} });
      // 1.34 leaves a zero creationTimestamp out (omitzero) rather than writing null
      expect(ssrr.json.metadata).toEqual({});
      expect(ssrr.json.status).toMatchObject({ incomplete: false, evaluationError: 'clusterrole.rbac.authorization.k8s.io "no-such-role" not found' });
    });
  });

  describe("validation", () => {
    it("malformed roles and bindings → 422 with causes", async () => {
      const r1 = await post(rbac("roles", "team"), { metadata: { name: "bad" }, rules: [{ apiGroups: [""], resources: [] }] });
      expect(r1.status).toBe(422);
      expect(r1.json.details.causes).toEqual([
        { reason: "FieldValueRequired", message: "Required value: verbs must contain at least one value", field: "rules[0].verbs" },
        { reason: "FieldValueRequired", message: "Required value: resource rules must supply at least one resource", field: "rules[0].resources" },
      ]);
      const r2 = await post(rbac("clusterrolebindings"), { metadata: { name: "bad" }, roleRef: { apiGroup: g, kind: "Role", name: "x" }, subjects: [{ kind: "Robot", name: "r" }] });
      expect(r2.status).toBe(422);
      expect(r2.json.message).toContain('roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"');
      expect(r2.json.message).toContain('subjects[0].kind: Unsupported value: "Robot"');
      const r3 = await post(rbac("clusterroles"), clusterRole("bad-agg", [], { aggregationRule: { clusterRoleSelectors: [] } }));
      expect(r3.status).toBe(422);
      expect(r3.json.details.causes).toEqual([{ reason: "FieldValueRequired", message: "Required value: at least one clusterRoleSelector required if aggregationRule is non-nil", field: "aggregationRule.clusterRoleSelectors" }]);
      const r4 = await post(rbac("clusterroles"), { metadata: { name: "bad-url" }, rules: [{ nonResourceURLs: ["/x"], resources: ["pods"], verbs: ["get"] }] });
      expect(r4.status).toBe(422);
      expect(r4.json.message).toContain("rules cannot apply to both regular resources and non-resource URLs");
    });

    it("roleRef cannot change", async () => {
      const b = await mustPost(rbac("rolebindings", "team"), roleBinding("team", "fixed", "ClusterRole", "t-view", [U("dave")]));
      const r = await req(s, "PUT", `${rbac("rolebindings", "team")}/fixed`, { body: { ...b, roleRef: { apiGroup: g, kind: "ClusterRole", name: "t-edit" } } });
      expect(r.status).toBe(422);
      expect(r.json.message).toContain("roleRef: Invalid value");
      expect(r.json.message).toContain("cannot change roleRef");
    });
  });

  describe("aggregation controller", () => {
    it("fills rules from labelled ClusterRoles, live, within a second", async () => {
      await mustPost(rbac("clusterroles"), clusterRole("agg", [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { "example.com/aggregate-to-agg": "true" } }] } }));
      const rules = async () => (await req(s, "GET", `${rbac("clusterroles")}/agg`)).json.rules ?? [];
      /** How long the controller took to settle; its rules must then be `want`. */
      const within = async (want: unknown[]) => {
        const t0 = performance.now();
        await s.settle();
        const ms = performance.now() - t0;
        expect(await rules()).toEqual(want);
        return ms;
      };
      const label = { "example.com/aggregate-to-agg": "true" };
      const r1 = { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["get"] };
      const r2 = { apiGroups: ["example.com"], resources: ["gadgets"], verbs: ["list"] };
      await mustPost(rbac("clusterroles"), { metadata: { name: "part-b", labels: label }, rules: [r1] });
      expect(await within([r1])).toBeLessThan(1000);
      await mustPost(rbac("clusterroles"), { metadata: { name: "part-a", labels: label }, rules: [r2, r1] });
      expect(await within([r2, r1])).toBeLessThan(1000);
      expect((await req(s, "DELETE", `${rbac("clusterroles")}/part-a`)).status).toBe(200);
      expect(await within([r1])).toBeLessThan(1000);
      const stored = (await req(s, "GET", `${rbac("clusterroles")}/agg`)).json;
      expect(stored.metadata.managedFields.map((f: { manager: string }) => f.manager)).toContain("clusterrole-aggregation-controller");
    });

    it("an aggregationRule needs full authority from anyone but system:masters", async () => {
      const r = await post(rbac("clusterroles"), clusterRole("sneaky", [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: "b" } }] } }), tok("carol"));
      expect(r.status).toBe(403); // carol may not create clusterroles at all: the authorization filter
    });
  });

  describe("access reviews", () => {
    it("SubjectAccessReview: only for those allowed to create it; answers from the chain", async () => {
      const body = { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec: { user: "alice", resourceAttributes: { namespace: "team", verb: "list", resource: "pods" } } };
      expect((await post("/apis/authorization.k8s.io/v1/subjectaccessreviews", body, tok("alice"))).status).toBe(403);
      const r = await post("/apis/authorization.k8s.io/v1/subjectaccessreviews", body);
      expect(r.status).toBe(201);
      expect(r.json.status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-edit/team" of ClusterRole "t-edit" to User "alice"' });
      const no = await post("/apis/authorization.k8s.io/v1/subjectaccessreviews", { ...body, spec: { ...body.spec, resourceAttributes: { namespace: "team", verb: "list", resource: "secrets" } } });
      expect(no.json.status).toEqual({ allowed: false }); // no opinion from anyone: not `denied`
      const bad = await post("/apis/authorization.k8s.io/v1/subjectaccessreviews", { ...body, spec: {} });
      expect(bad.status).toBe(422);
      expect(bad.json.message).toBe(
        'SubjectAccessReview.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
      );
    });

    it("LocalSubjectAccessReview: the namespace must match the path", async () => {
      const path = "/apis/authorization.k8s.io/v1/namespaces/team/localsubjectaccessreviews";
      const spec = { user: "alice", resourceAttributes: { namespace: "team", verb: "get", resource: "pods" } };
      const ok = await post(path, { spec });
      expect(ok.status).toBe(201);
      expect(ok.json.metadata.namespace).toBe("team");
      expect(ok.json.status.allowed).toBe(true);
      const bad = await post(path, { spec: { ...spec, resourceAttributes: { ...spec.resourceAttributes, namespace: "default" } } });
      expect(bad.status).toBe(422);
      expect(bad.json.message).toBe('LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "default": must match metadata.namespace');
      const other = await post(path, { metadata: { namespace: "default" }, spec });
      expect(other.status).toBe(400);
      expect(other.json.message).toBe("the namespace of the provided object does not match the namespace sent on the request");
    });

    it("SelfSubjectRulesReview needs a namespace; lists the user's rules", async () => {
      const path = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";
      const none = await post(path, { spec: {} }, tok("erin"));
      expect(none.status).toBe(400);
      expect(none.json.message).toBe("no namespace on request");
      const r = await post(path, { spec: { namespace: "team" } }, tok("erin"));
      expect(r.status).toBe(201);
      expect(r.json.status.incomplete).toBe(false);
      expect(r.json.status.resourceRules).toContainEqual({ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods"] });
      expect(r.json.status.nonResourceRules).toContainEqual({ verbs: ["get"], nonResourceURLs: ["/api", "/api/*", "/apis", "/apis/*", "/version", "/openapi/*"] });
    });
  });

  describe.skipIf(!bin)("kubectl 1.33", () => {
    it("auth can-i for several users, with -n, --as and --as-group", async () => {
      expect(await kt("alice", ["auth", "can-i", "list", "pods", "-n", "team"])).toMatchObject({ code: 0, stdout: "yes\n" });
      expect(await kt("alice", ["auth", "can-i", "list", "pods", "-n", "default"])).toMatchObject({ code: 1, stdout: "no\n" });
      expect(await kt("alice", ["auth", "can-i", "get", "secrets", "-n", "team"])).toMatchObject({ code: 1, stdout: "no\n" });
      expect(await kt("bob", ["auth", "can-i", "get", "secrets", "-n", "team"])).toMatchObject({ code: 0, stdout: "yes\n" });
      expect(await k(["auth", "can-i", "create", "deployments.apps", "-n", "team", "--as", "alice"])).toMatchObject({ code: 0, stdout: "yes\n" });
      expect(await k(["auth", "can-i", "delete", "pods", "-n", "team", "--as", "frank"])).toMatchObject({ code: 1, stdout: "no\n" });
      expect(await k(["auth", "can-i", "watch", "pods", "-n", "team", "--as", "frank", "--as-group", "viewers"])).toMatchObject({ code: 0, stdout: "yes\n" });
      expect(await k(["auth", "can-i", "get", "/version", "--as", "frank", "--as-group", "system:authenticated"])).toMatchObject({ code: 0, stdout: "yes\n" });
      expect(await k(["auth", "can-i", "get", "/metrics", "--as", "frank", "--as-group", "system:authenticated"])).toMatchObject({ code: 1, stdout: "no\n" });
      expect(await k(["auth", "can-i", "bind", "clusterroles/t-admin", "-n", "team", "--as", "bob"])).toMatchObject({ code: 0, stdout: "yes\n" });
      expect(await k(["auth", "can-i", "bind", "clusterroles/t-edit", "-n", "team", "--as", "bob"])).toMatchObject({ code: 1 });
      expect(await k(["auth", "can-i", "*", "*"])).toMatchObject({ code: 0, stdout: "yes\n" });
    });

    it("auth can-i --list for several users", async () => {
      const alice = await kt("alice", ["auth", "can-i", "--list", "-n", "team"]);
      expect(alice.code).toBe(0);
      expect(alice.stdout).toMatch(/^Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/m);
      expect(alice.stdout).toMatch(/^deployments\.apps\s+\[\]\s+\[\]\s+\[get list watch create update patch delete\]$/m);
      expect(alice.stdout).toMatch(/^pods\s+\[\]\s+\[\]\s+\[get list watch create update patch delete\]$/m);
      expect(alice.stdout).toMatch(/^\s+\[\/version\]\s+\[\]\s+\[get\]$/m);
      expect(alice.stdout).not.toMatch(/^secrets/m);
      const bob = await kt("bob", ["auth", "can-i", "--list", "-n", "team"]);
      expect(bob.stdout).toMatch(/^secrets\s+\[\]\s+\[\]\s+\[get list\]$/m);
      expect(bob.stdout).toMatch(/^clusterroles\.rbac\.authorization\.k8s\.io\s+\[\]\s+\[t-admin\]\s+\[bind\]$/m);
      const dave = await k(["auth", "can-i", "--list", "-n", "default", "--as", "dave", "--as-group", "system:authenticated"]);
      expect(dave.code).toBe(0);
      expect(dave.stdout).not.toMatch(/^pods/m);
      expect(dave.stdout).toMatch(/^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
      const erin = await kt("erin", ["auth", "can-i", "--list", "-n", "team"]);
      expect(erin.stdout).toMatch(/^pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    });

    it("auth reconcile -f creates, then adds missing rules and subjects", async () => {
      const doc = (verbs: string[], subjects: string[]) =>
        [
          { apiVersion: `${g}/v1`, kind: "ClusterRole", metadata: { name: "rec-role" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs }] },
          { apiVersion: `${g}/v1`, kind: "Role", metadata: { name: "rec-local", namespace: "team" }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs }] },
          { apiVersion: `${g}/v1`, kind: "RoleBinding", metadata: { name: "rec-local", namespace: "team" }, roleRef: { apiGroup: g, kind: "Role", name: "rec-local" }, subjects: subjects.map(U) },
          { apiVersion: `${g}/v1`, kind: "ClusterRoleBinding", metadata: { name: "rec-role" }, roleRef: { apiGroup: g, kind: "ClusterRole", name: "rec-role" }, subjects: subjects.map(U) },
        ]
          .map((o) => stringify(o))
          .join("---\n");
      const f1 = join(dir, "rec1.yaml");
      writeFileSync(f1, doc(["get"], ["alice"]));
      const r1 = await k(["auth", "reconcile", "-f", f1]);
      expect(r1.code).toBe(0);
      expect(r1.stderr).toContain("reconciliation required create");
      expect(r1.stdout).toContain("clusterrole.rbac.authorization.k8s.io/rec-role reconciled");
      expect(r1.stdout).toContain("rolebinding.rbac.authorization.k8s.io/rec-local reconciled");
      const f2 = join(dir, "rec2.yaml");
      writeFileSync(f2, doc(["list"], ["dave"]));
      const r2 = await k(["auth", "reconcile", "-f", f2]);
      expect(r2.code).toBe(0);
      const role = (await req(s, "GET", `${rbac("clusterroles")}/rec-role`)).json;
      expect(role.rules).toEqual([{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }, { apiGroups: [""], resources: ["pods"], verbs: ["list"] }]);
      const rb = (await req(s, "GET", `${rbac("rolebindings", "team")}/rec-local`)).json;
      expect(rb.subjects.map((x: { name: string }) => x.name)).toEqual(["alice", "dave"]);
      // --remove-extra-subjects drops alice again
      const r3 = await k(["auth", "reconcile", "-f", f2, "--remove-extra-subjects", "--remove-extra-permissions"]);
      expect(r3.code).toBe(0);
      expect((await req(s, "GET", `${rbac("rolebindings", "team")}/rec-local`)).json.subjects.map((x: { name: string }) => x.name)).toEqual(["dave"]);
      expect((await req(s, "GET", `${rbac("clusterroles")}/rec-role`)).json.rules).toEqual([{ apiGroups: [""], resources: ["pods"], verbs: ["list"] }]);
    });
  });
});
