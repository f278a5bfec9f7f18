import { describe, expect, it } from "vitest";
import type { RequestInfo } from "../../http/request-info.js";
import type { FlowSchema, PolicyRulesWithSubjects } from "../../types/flowcontrol-bootstrap.js";
import { matchesFlowSchema } from "./rules.js";

const fs = (rule: PolicyRulesWithSubjects): FlowSchema => ({ metadata: { name: "t" }, spec: { priorityLevelConfiguration: { name: "p" }, matchingPrecedence: 10, rules: [rule] } });
const info = (o: Partial<RequestInfo>): RequestInfo => ({ isResourceRequest: true, path: "/", verb: "get", apiPrefix: "api", apiGroup: "", apiVersion: "v1", namespace: "", resource: "", subresource: "", name: "", parts: [], ...o });
const alice = { name: "alice", groups: ["devs", "system:authenticated"] };

describe("matchesFlowSchema", () => {
  it("matches users, groups and service accounts (by name or every one of a namespace)", () => {
    const rule = (subjects: PolicyRulesWithSubjects["subjects"]) => fs({ subjects, nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }] });
    const req = info({ isResourceRequest: false, path: "/version" });
    expect(matchesFlowSchema(req, alice, rule([{ kind: "User", user: { name: "alice" } }]))).toBe(true);
    expect(matchesFlowSchema(req, alice, rule([{ kind: "User", user: { name: "bob" } }]))).toBe(false);
    expect(matchesFlowSchema(req, alice, rule([{ kind: "Group", group: { name: "devs" } }]))).toBe(true);
    const sa = { name: "system:serviceaccount:ns1:builder", groups: [] };
    expect(matchesFlowSchema(req, sa, rule([{ kind: "ServiceAccount", serviceAccount: { namespace: "ns1", name: "*" } }]))).toBe(true);
    expect(matchesFlowSchema(req, sa, rule([{ kind: "ServiceAccount", serviceAccount: { namespace: "ns", name: "*" } }]))).toBe(false);
    expect(matchesFlowSchema(req, sa, rule([{ kind: "ServiceAccount", serviceAccount: { namespace: "ns1", name: "builder" } }]))).toBe(true);
  });

  it("matches resource rules by verb, group, resource/subresource and namespace or cluster scope", () => {
    const schema = fs({ subjects: [{ kind: "Group", group: { name: "*" } }], resourceRules: [{ verbs: ["get", "list"], apiGroups: ["apps"], resources: ["deployments/scale"], namespaces: ["a"] }] });
    expect(matchesFlowSchema(info({ apiGroup: "apps", resource: "deployments", subresource: "scale", namespace: "a" }), alice, schema)).toBe(true);
    expect(matchesFlowSchema(info({ apiGroup: "apps", resource: "deployments", namespace: "a" }), alice, schema)).toBe(false);
    expect(matchesFlowSchema(info({ apiGroup: "apps", resource: "deployments", subresource: "scale", namespace: "b" }), alice, schema)).toBe(false);
    expect(matchesFlowSchema(info({ apiGroup: "apps", resource: "deployments", subresource: "scale" }), alice, schema)).toBe(false);
    expect(matchesFlowSchema(info({ verb: "delete", apiGroup: "apps", resource: "deployments", subresource: "scale", namespace: "a" }), alice, schema)).toBe(false);
    const cluster = fs({ subjects: [{ kind: "Group", group: { name: "*" } }], resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true }] });
    expect(matchesFlowSchema(info({ resource: "nodes" }), alice, cluster)).toBe(true);
    expect(matchesFlowSchema(info({ resource: "pods", namespace: "x" }), alice, cluster)).toBe(false);
  });

  it("matches non-resource URLs exactly, by a /* prefix, and (as upstream) a path as the prefix of its children", () => {
    const schema = fs({ subjects: [{ kind: "Group", group: { name: "*" } }], nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/apis/*"] }] });
    const get = (path: string) => matchesFlowSchema(info({ isResourceRequest: false, path }), alice, schema);
    expect(get("/healthz")).toBe(true);
    expect(get("/healthz/etcd")).toBe(true);
    expect(get("/healthzz")).toBe(false);
    expect(get("/apis/apps")).toBe(true);
    expect(get("/api")).toBe(false);
    expect(matchesFlowSchema(info({ isResourceRequest: false, path: "/healthz", verb: "post" }), alice, schema)).toBe(false);
  });
});
