import { describe, expect, it } from "vitest";
import type { UserInfo } from "../../apimachinery/user.js";
import { authorizerConformance, attributes, type AuthorizerConformanceCase } from "../conformance.testkit.js";
import { Graph } from "./graph.js";
import { NodeAuthorizer, nodeIdentity } from "./authorizer.js";
import { nodeRules, rulesAllow } from "./rules.js";

const node = (name: string, groups = ["system:nodes", "system:authenticated"]): UserInfo => ({ name: `system:node:${name}`, uid: "", groups, extra: {} });
const a = node("a");
const b = node("b");
const alice: UserInfo = { name: "alice", uid: "", groups: ["system:authenticated"], extra: {} };

function graph(): Graph {
  const g = new Graph();
  g.setPod("ns", "pa", "a", { serviceAccount: "sa-a", secrets: ["sa"], configMaps: ["ca"], pvcs: ["claim-a"], resourceClaims: ["rc-a"] });
  g.setPod("ns", "pb", "b", { serviceAccount: "sa-b", secrets: ["sb"], configMaps: [], pvcs: [], resourceClaims: [] });
  g.setPV("pv-a", { namespace: "ns", name: "claim-a" }, []);
  g.setNodeOwned("volumeattachment", "", "va-a", "a");
  g.setNodeOwned("resourceslice", "", "slice-a", "a");
  return g;
}

const gatesOn = { authorizeNodeWithSelectors: true, kubeletServiceAccountTokenForCredentialProviders: true };
const noRel = "no relationship found between node 'a' and this object";
const fs = (field: string, value: string) => ({ raw: `${field}=${value}`, requirements: [{ field, operator: "=" as const, value }] });

const cases: AuthorizerConformanceCase[] = [
  // identity
  { title: "not a node", attributes: { user: alice, resource: "secrets", namespace: "ns", name: "sa" }, decision: "no-opinion", reasonMatches: /^$/ },
  { title: "node name without the group", attributes: { user: node("a", ["system:authenticated"]), resource: "secrets", namespace: "ns", name: "sa" }, decision: "no-opinion", reasonMatches: /^$/ },
  { title: "empty node name", attributes: { user: { name: "system:node:", uid: "", groups: ["system:nodes"], extra: {} }, resource: "services" }, decision: "no-opinion", reasonMatches: 'unknown node for user "system:node:"' },
  // graph-checked reads
  { title: "get its pod's secret", attributes: { user: a, resource: "secrets", namespace: "ns", name: "sa" }, decision: "allow" },
  { title: "watch its pod's secret by name", attributes: { user: a, verb: "watch", resource: "secrets", namespace: "ns", name: "sa" }, decision: "allow" },
  { title: "get another node's pod's secret", attributes: { user: a, resource: "secrets", namespace: "ns", name: "sb" }, decision: "no-opinion", reasonMatches: noRel },
  { title: "get an unknown secret", attributes: { user: a, resource: "secrets", namespace: "ns", name: "nope" }, decision: "no-opinion", reasonMatches: noRel },
  { title: "list all secrets", attributes: { user: a, verb: "list", resource: "secrets", namespace: "ns" }, decision: "no-opinion", reasonMatches: "No Object name found" },
  { title: "update a secret", attributes: { user: a, verb: "update", resource: "secrets", namespace: "ns", name: "sa" }, decision: "no-opinion", reasonMatches: "can only read resources of this type" },
  { title: "secret subresource", attributes: { user: a, resource: "secrets", subresource: "x", namespace: "ns", name: "sa" }, decision: "no-opinion", reasonMatches: "cannot read subresource" },
  { title: "secret without namespace", attributes: { user: a, verb: "list", resource: "secrets" }, decision: "no-opinion", reasonMatches: "can only read namespaced object of this type" },
  { title: "get its configmap", attributes: { user: a, resource: "configmaps", namespace: "ns", name: "ca" }, decision: "allow" },
  { title: "get its pvc", attributes: { user: a, resource: "persistentvolumeclaims", namespace: "ns", name: "claim-a" }, decision: "allow" },
  { title: "list pvcs", attributes: { user: a, verb: "list", resource: "persistentvolumeclaims", namespace: "ns" }, decision: "no-opinion", reasonMatches: "can only get individual resources of this type" },
  { title: "update its pvc status", attributes: { user: a, verb: "patch", resource: "persistentvolumeclaims", subresource: "status", namespace: "ns", name: "claim-a" }, decision: "allow" },
  { title: "get pvc status", attributes: { user: a, verb: "get", resource: "persistentvolumeclaims", subresource: "status", namespace: "ns", name: "claim-a" }, decision: "no-opinion", reasonMatches: "can only get/update/patch this type" },
  { title: "get its pv", attributes: { user: a, resource: "persistentvolumes", name: "pv-a" }, decision: "allow" },
  { title: "b gets a's pv", attributes: { user: b, resource: "persistentvolumes", name: "pv-a" }, decision: "no-opinion", reasonMatches: "no relationship found between node 'b' and this object" },
  { title: "get its resource claim", attributes: { user: a, apiGroup: "resource.k8s.io", resource: "resourceclaims", namespace: "ns", name: "rc-a" }, decision: "allow" },
  { title: "get its volume attachment", attributes: { user: a, apiGroup: "storage.k8s.io", resource: "volumeattachments", name: "va-a" }, decision: "allow" },
  { title: "b gets a's volume attachment", attributes: { user: b, apiGroup: "storage.k8s.io", resource: "volumeattachments", name: "va-a" }, decision: "no-opinion" },
  // service accounts
  { title: "token for its pod's service account", attributes: { user: a, verb: "create", resource: "serviceaccounts", subresource: "token", namespace: "ns", name: "sa-a" }, decision: "allow" },
  { title: "token for another node's service account", attributes: { user: a, verb: "create", resource: "serviceaccounts", subresource: "token", namespace: "ns", name: "sa-b" }, decision: "no-opinion", reasonMatches: noRel },
  { title: "get its pod's service account", attributes: { user: a, resource: "serviceaccounts", namespace: "ns", name: "sa-a" }, decision: "allow" },
  { title: "create a service account", attributes: { user: a, verb: "create", resource: "serviceaccounts", namespace: "ns" }, decision: "no-opinion", reasonMatches: "can only create tokens for individual service accounts" },
  { title: "update a service account", attributes: { user: a, verb: "update", resource: "serviceaccounts", namespace: "ns", name: "sa-a" }, decision: "no-opinion", reasonMatches: "can only create tokens for individual service accounts" },
  // leases and CSINodes
  { title: "update its lease", attributes: { user: a, verb: "update", apiGroup: "coordination.k8s.io", resource: "leases", namespace: "kube-node-lease", name: "a" }, decision: "allow" },
  { title: "create a lease (name checked by admission)", attributes: { user: a, verb: "create", apiGroup: "coordination.k8s.io", resource: "leases", namespace: "kube-node-lease" }, decision: "allow" },
  { title: "another node's lease", attributes: { user: a, verb: "get", apiGroup: "coordination.k8s.io", resource: "leases", namespace: "kube-node-lease", name: "b" }, decision: "no-opinion", reasonMatches: "can only access node lease with the same name as the requesting node" },
  { title: "lease elsewhere", attributes: { user: a, verb: "get", apiGroup: "coordination.k8s.io", resource: "leases", namespace: "default", name: "a" }, decision: "no-opinion", reasonMatches: 'can only access leases in the "kube-node-lease" system namespace' },
  { title: "list leases", attributes: { user: a, verb: "list", apiGroup: "coordination.k8s.io", resource: "leases", namespace: "kube-node-lease" }, decision: "no-opinion", reasonMatches: "can only get, create, update, patch, or delete a node lease" },
  { title: "its CSINode", attributes: { user: a, verb: "patch", apiGroup: "storage.k8s.io", resource: "csinodes", name: "a" }, decision: "allow" },
  { title: "another CSINode", attributes: { user: a, verb: "get", apiGroup: "storage.k8s.io", resource: "csinodes", name: "b" }, decision: "no-opinion", reasonMatches: "can only access CSINode with the same name as the requesting node" },
  // resource slices
  { title: "create a resource slice", attributes: { user: a, verb: "create", apiGroup: "resource.k8s.io", resource: "resourceslices" }, decision: "allow" },
  { title: "update its resource slice", attributes: { user: a, verb: "update", apiGroup: "resource.k8s.io", resource: "resourceslices", name: "slice-a" }, decision: "allow" },
  { title: "b updates a's resource slice", attributes: { user: b, verb: "update", apiGroup: "resource.k8s.io", resource: "resourceslices", name: "slice-a" }, decision: "no-opinion" },
  { title: "list its resource slices", attributes: { user: a, verb: "list", apiGroup: "resource.k8s.io", resource: "resourceslices", fieldSelector: fs("spec.nodeName", "a") }, decision: "allow" },
  { title: "list all resource slices", attributes: { user: a, verb: "list", apiGroup: "resource.k8s.io", resource: "resourceslices" }, decision: "no-opinion", reasonMatches: "can only list/watch/deletecollection resourceslices with nodeName field selector" },
  // nodes (AuthorizeNodeWithSelectors)
  { title: "get its own Node", attributes: { user: a, resource: "nodes", name: "a" }, decision: "allow" },
  { title: "get another Node", attributes: { user: a, resource: "nodes", name: "b" }, decision: "no-opinion", reasonMatches: "node 'a' cannot read 'b', only its own Node object" },
  { title: "list all Nodes", attributes: { user: a, verb: "list", resource: "nodes" }, decision: "no-opinion", reasonMatches: "node 'a' cannot read all nodes, only its own Node object" },
  { title: "create a Node", attributes: { user: a, verb: "create", resource: "nodes" }, decision: "allow" },
  { title: "update a Node", attributes: { user: a, verb: "update", resource: "nodes", name: "a" }, decision: "allow" },
  { title: "patch node status", attributes: { user: a, verb: "patch", resource: "nodes", subresource: "status", name: "a" }, decision: "allow" },
  { title: "delete a Node", attributes: { user: a, verb: "delete", resource: "nodes", name: "a" }, decision: "no-opinion", reasonMatches: /^$/ },
  { title: "nodes/proxy", attributes: { user: a, verb: "get", resource: "nodes", subresource: "proxy", name: "a" }, decision: "no-opinion", reasonMatches: /^$/ },
  // pods (AuthorizeNodeWithSelectors)
  { title: "get its pod", attributes: { user: a, resource: "pods", namespace: "ns", name: "pa" }, decision: "allow" },
  { title: "get another node's pod", attributes: { user: a, resource: "pods", namespace: "ns", name: "pb" }, decision: "no-opinion", reasonMatches: noRel },
  { title: "list pods on it", attributes: { user: a, verb: "list", resource: "pods", fieldSelector: fs("spec.nodeName", "a") }, decision: "allow" },
  { title: "watch pods on it", attributes: { user: a, verb: "watch", resource: "pods", namespace: "ns", fieldSelector: fs("spec.nodeName", "a") }, decision: "allow" },
  { title: "list pods on another node", attributes: { user: a, verb: "list", resource: "pods", fieldSelector: fs("spec.nodeName", "b") }, decision: "no-opinion", reasonMatches: "can only list/watch pods with spec.nodeName field selector" },
  { title: "list all pods", attributes: { user: a, verb: "list", resource: "pods" }, decision: "no-opinion", reasonMatches: "can only list/watch pods with spec.nodeName field selector" },
  { title: "create a (mirror) pod", attributes: { user: a, verb: "create", resource: "pods", namespace: "ns" }, decision: "allow" },
  { title: "update pod status", attributes: { user: a, verb: "update", resource: "pods", subresource: "status", namespace: "ns", name: "pb" }, decision: "allow" },
  { title: "evict a pod", attributes: { user: a, verb: "create", resource: "pods", subresource: "eviction", namespace: "ns", name: "pa" }, decision: "allow" },
  { title: "update a pod", attributes: { user: a, verb: "update", resource: "pods", namespace: "ns", name: "pa" }, decision: "no-opinion", reasonMatches: /^$/ },
  { title: "pods/exec", attributes: { user: a, verb: "create", resource: "pods", subresource: "exec", namespace: "ns", name: "pa" }, decision: "no-opinion", reasonMatches: /^$/ },
  // static node rules
  { title: "list services", attributes: { user: a, verb: "list", resource: "services" }, decision: "allow" },
  { title: "create a service", attributes: { user: a, verb: "create", resource: "services", namespace: "ns" }, decision: "no-opinion", reasonMatches: /^$/ },
  { title: "get endpoints", attributes: { user: a, verb: "get", resource: "endpoints", namespace: "ns", name: "x" }, decision: "allow" },
  { title: "create events", attributes: { user: a, verb: "create", resource: "events", namespace: "ns" }, decision: "allow" },
  { title: "create a CSR", attributes: { user: a, verb: "create", apiGroup: "certificates.k8s.io", resource: "certificatesigningrequests" }, decision: "allow" },
  { title: "watch CSRs", attributes: { user: a, verb: "watch", apiGroup: "certificates.k8s.io", resource: "certificatesigningrequests" }, decision: "allow" },
  { title: "approve a CSR", attributes: { user: a, verb: "update", apiGroup: "certificates.k8s.io", resource: "certificatesigningrequests", subresource: "approval", name: "x" }, decision: "no-opinion" },
  { title: "create a TokenReview", attributes: { user: a, verb: "create", apiGroup: "authentication.k8s.io", resource: "tokenreviews" }, decision: "allow" },
  { title: "create a SubjectAccessReview", attributes: { user: a, verb: "create", apiGroup: "authorization.k8s.io", resource: "subjectaccessreviews" }, decision: "allow" },
  { title: "create a LocalSubjectAccessReview", attributes: { user: a, verb: "create", apiGroup: "authorization.k8s.io", resource: "localsubjectaccessreviews", namespace: "ns" }, decision: "allow" },
  { title: "list CSI drivers", attributes: { user: a, verb: "list", apiGroup: "storage.k8s.io", resource: "csidrivers" }, decision: "allow" },
  { title: "watch runtime classes", attributes: { user: a, verb: "watch", apiGroup: "node.k8s.io", resource: "runtimeclasses" }, decision: "allow" },
  { title: "list namespaces", attributes: { user: a, verb: "list", resource: "namespaces" }, decision: "no-opinion", reasonMatches: /^$/ },
  { title: "create deployments", attributes: { user: a, verb: "create", apiGroup: "apps", resource: "deployments", namespace: "ns" }, decision: "no-opinion" },
  { title: "non-resource /healthz", attributes: { user: a, isResourceRequest: false, verb: "get", path: "/healthz" }, decision: "no-opinion", reasonMatches: /^$/ },
];

authorizerConformance({ name: "Node", make: () => new NodeAuthorizer(graph(), gatesOn), cases });

describe("Node authorizer: gates and identity", () => {
  it("without AuthorizeNodeWithSelectors, nodes and pods fall to the static rules (any Node, any pod list)", () => {
    const z = new NodeAuthorizer(graph(), { authorizeNodeWithSelectors: false, kubeletServiceAccountTokenForCredentialProviders: true });
    expect(z.authorize(attributes({ user: a, resource: "nodes", name: "b" })).decision).toBe("allow");
    expect(z.authorize(attributes({ user: a, verb: "list", resource: "pods" })).decision).toBe("allow");
    expect(z.authorize(attributes({ user: a, resource: "pods", namespace: "ns", name: "pb" })).decision).toBe("allow");
    expect(z.authorize(attributes({ user: a, verb: "list", apiGroup: "resource.k8s.io", resource: "resourceslices" })).decision).toBe("allow");
    expect(z.authorize(attributes({ user: a, verb: "delete", resource: "nodes", name: "a" })).decision).toBe("no-opinion");
  });

  it("without KubeletServiceAccountTokenForCredentialProviders, no get of service accounts", () => {
    const z = new NodeAuthorizer(graph(), { authorizeNodeWithSelectors: true, kubeletServiceAccountTokenForCredentialProviders: false });
    expect(z.authorize(attributes({ user: a, resource: "serviceaccounts", namespace: "ns", name: "sa-a" })).decision).toBe("no-opinion");
    expect(z.authorize(attributes({ user: a, verb: "create", resource: "serviceaccounts", subresource: "token", namespace: "ns", name: "sa-a" })).decision).toBe("allow");
  });

  it("identity as upstream's node identifier", () => {
    expect(nodeIdentity(a)).toEqual({ isNode: true, nodeName: "a" });
    expect(nodeIdentity(node("x.example.com"))).toEqual({ isNode: true, nodeName: "x.example.com" });
    expect(nodeIdentity({ ...a, groups: [] })).toEqual({ isNode: false });
    expect(nodeIdentity({ ...alice, groups: ["system:nodes"] })).toEqual({ isNode: false });
    expect(nodeIdentity(undefined)).toEqual({ isNode: false });
  });

  it("rules reviews: incomplete for nodes, nothing and complete for others", () => {
    const z = new NodeAuthorizer(graph(), gatesOn);
    expect(z.rulesFor(a)).toMatchObject({ incomplete: true, evaluationError: "node authorizer does not support user rule resolution" });
    expect(z.rulesFor(alice)).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: false });
  });

  it("static rule matching: subresources need their own rule", () => {
    const rules = nodeRules();
    expect(rulesAllow(attributes({ user: a, verb: "create", resource: "serviceaccounts", subresource: "token" }), rules)).toBe(true);
    expect(rulesAllow(attributes({ user: a, verb: "get", resource: "services", subresource: "proxy" }), rules)).toBe(false);
    expect(rulesAllow(attributes({ user: a, verb: "get", apiGroup: "apps", resource: "services" }), rules)).toBe(false);
  });
});
