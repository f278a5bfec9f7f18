import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { attributes, authorizerConformance } from "../conformance.testkit.js";
import { abacAuthorizer, abacFromFile, loadPolicyFile, parsePolicies } from "./index.js";

const v1 = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: "abac.authorization.kubernetes.io/v1beta1", kind: "Policy", spec });
const policy = [
  "# comment line",
  "",
  v1({ user: "alice", namespace: "*", resource: "*", apiGroup: "*" }),
  v1({ user: "bob", namespace: "projectCaribou", resource: "pods", apiGroup: "", readonly: true }),
  v1({ group: "system:authenticated", readonly: true, nonResourcePath: "*" }),
  v1({ group: "system:unauthenticated", readonly: true, nonResourcePath: "/version" }),
  v1({ user: "kubelet", namespace: "*", resource: "events", apiGroup: "*" }),
  v1({ group: "ops", namespace: "*", resource: "deployments", apiGroup: "apps" }),
  v1({ user: "*", nonResourcePath: "/healthz/*" }),
  v1({ user: "carol", nonResourcePath: "/logs/*" }),
  "   # indented comment",
  JSON.stringify({ user: "dave", resource: "configmaps" }), // v0: every namespace, any group
  JSON.stringify({ group: "legacy" }), // v0: everything incl. non-resource paths
].join("\n");

const dir = mkdtempSync(join(tmpdir(), "abac-"));
const file = join(dir, "policy.jsonl");
writeFileSync(file, policy);

const u = (name: string, ...groups: string[]) => ({ name, groups: [...groups, ...(name === "system:anonymous" ? ["system:unauthenticated"] : ["system:authenticated"])] });
const res = (verb: string, resource: string, namespace = "", apiGroup = "") => ({ verb, resource, namespace, apiGroup, isResourceRequest: true });
const path = (verb: string, p: string) => ({ verb, path: p, isResourceRequest: false, apiVersion: "" });

authorizerConformance({
  name: "ABAC",
  make: () => abacFromFile(file),
  cases: [
    { title: "alice may do anything on resources", attributes: { user: u("alice"), ...res("delete", "secrets", "kube-system") }, decision: "allow" },
    { title: "bob reads pods in projectCaribou", attributes: { user: u("bob"), ...res("list", "pods", "projectCaribou") }, decision: "allow" },
    { title: "bob may not create pods there (readonly)", attributes: { user: u("bob"), ...res("create", "pods", "projectCaribou") }, decision: "no-opinion", reasonMatches: "No policy matched." },
    { title: "bob may not read pods elsewhere", attributes: { user: u("bob"), ...res("get", "pods", "default") }, decision: "no-opinion" },
    { title: "bob may not read pods of another group", attributes: { user: u("bob"), ...res("get", "pods", "projectCaribou", "metrics.k8s.io") }, decision: "no-opinion" },
    { title: "authenticated users read non-resource paths", attributes: { user: u("bob"), ...path("get", "/apis") }, decision: "allow" },
    { title: "but do not post to them", attributes: { user: u("bob"), ...path("post", "/apis") }, decision: "no-opinion" },
    { title: "anonymous reads /version", attributes: { user: u("system:anonymous"), ...path("get", "/version") }, decision: "allow" },
    { title: "anonymous does not read /apis", attributes: { user: u("system:anonymous"), ...path("get", "/apis") }, decision: "no-opinion" },
    { title: "user * is every authenticated user: /healthz/etcd", attributes: { user: u("zed"), ...path("post", "/healthz/etcd") }, decision: "allow" },
    { title: "user * does not include anonymous", attributes: { user: u("system:anonymous"), ...path("post", "/healthz/etcd") }, decision: "no-opinion" },
    { title: "trailing * is a prefix", attributes: { user: u("carol"), ...path("put", "/logs/kube-apiserver.log") }, decision: "allow" },
    { title: "prefix does not match outside", attributes: { user: u("carol"), ...path("put", "/log") }, decision: "no-opinion" },
    { title: "a group's policy (ops writes apps deployments)", attributes: { user: u("erin", "ops"), ...res("patch", "deployments", "default", "apps") }, decision: "allow" },
    { title: "ops: not extensions deployments", attributes: { user: u("erin", "ops"), ...res("patch", "deployments", "default", "extensions") }, decision: "no-opinion" },
    { title: "non-resource policies never match resource requests", attributes: { user: u("carol"), ...res("get", "logs") }, decision: "no-opinion" },
    { title: "v0: resource in any namespace and group", attributes: { user: u("dave"), ...res("update", "configmaps", "x", "whatever") }, decision: "allow" },
    { title: "v0: not other resources", attributes: { user: u("dave"), ...res("update", "secrets", "x") }, decision: "no-opinion" },
    { title: "v0: a group with nothing else gets everything", attributes: { user: u("fay", "legacy"), ...path("delete", "/anything") }, decision: "allow" },
  ],
});

describe("ABAC policy file", () => {
  it("names the line that does not decode (upstream's message)", () => {
    expect(() => parsePolicies([v1({ user: "a" }), "{not json", v1({ user: "b" })].join("\n"), "/p.jsonl")).toThrow(/^error reading policy file \/p\.jsonl, line 2: \{not json: /);
    expect(() => parsePolicies(v1({ user: 7 }), "/p")).toThrow("error reading policy file /p, line 1: " + v1({ user: 7 }) + ": json: cannot unmarshal number into Go struct field Policy.spec.user of type string");
    expect(() => parsePolicies(v1({ readonly: "yes" }), "/p")).toThrow(/line 1: .*cannot unmarshal string into Go struct field Policy\.spec\.readonly of type bool/);
    expect(() => parsePolicies(JSON.stringify({ apiVersion: "abac.authorization.kubernetes.io/v1beta1", kind: "Role" }), "/p")).toThrow(/no kind "Role" is registered for version "abac.authorization.kubernetes.io\/v1beta1"/);
    expect(() => parsePolicies("# c\n\n[1,2]", "/p")).toThrow(/line 3: \[1,2\]/);
  });

  it("skips blank and comment lines and reads CRLF files", () => {
    expect(parsePolicies(`# x\r\n\r\n${v1({ user: "a", nonResourcePath: "*" })}\r\n`, "/p")).toHaveLength(1);
  });

  it("reports a missing file", () => {
    expect(() => loadPolicyFile(join(dir, "nope"))).toThrow(`open ${join(dir, "nope")}: no such file or directory`);
  });

  it("converts v0 as upstream: empty subject → system:authenticated; * → system:authenticated", () => {
    const [a, b] = parsePolicies([JSON.stringify({ resource: "pods" }), JSON.stringify({ user: "*", readonly: true })].join("\n"), "/p");
    expect(a).toEqual({ user: "", group: "system:authenticated", readonly: false, apiGroup: "*", resource: "pods", namespace: "*", nonResourcePath: "" });
    expect(b).toEqual({ user: "", group: "system:authenticated", readonly: true, apiGroup: "*", resource: "*", namespace: "*", nonResourcePath: "*" });
  });

  it("rules for a user (SelfSubjectRulesReview)", () => {
    const z = abacAuthorizer(parsePolicies(policy, "/p"));
    const rules = z.rulesFor!(u("bob"), "projectCaribou") as ReturnType<NonNullable<typeof z.rulesFor>> & object;
    expect(rules).toMatchObject({
      incomplete: false,
      resourceRules: [{ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods"] }],
    });
    expect(z.authorize(attributes({ user: u("bob"), ...res("watch", "pods", "projectCaribou") }))).toEqual({ decision: "allow", reason: "" });
  });
});
