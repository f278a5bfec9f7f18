// RBAC's cases for the shared authorizer conformance suite (src/authz/conformance.testkit.ts:
// {title, attributes, decision, reasonMatches?, error?}), over a fixed policy built into an index.
import type { UserInfo } from "../../apimachinery/user.js";
import type { Attributes, Decision } from "../authorizer.js";
import type { KObject } from "../../apimachinery/object.js";
import { RbacIndex } from "./index.js";

export interface RbacCase {
  readonly title: string;
  readonly attributes: Partial<Attributes> & { user: UserInfo };
  readonly decision: Decision;
  readonly reasonMatches?: string | RegExp;
  readonly error?: boolean | string | RegExp;
}

const g = "rbac.authorization.k8s.io";
const role = (ns: string, name: string, rules: object[]) => ({ apiVersion: `${g}/v1`, kind: "Role", metadata: { namespace: ns, name }, rules }) as unknown as KObject;
const clusterRole = (name: string, rules: object[]) => ({ apiVersion: `${g}/v1`, kind: "ClusterRole", metadata: { name }, rules }) as unknown as KObject;
const binding = (ns: string, name: string, roleRef: { kind: string; name: string }, subjects: object[]) =>
  ({ apiVersion: `${g}/v1`, kind: ns ? "RoleBinding" : "ClusterRoleBinding", metadata: ns ? { namespace: ns, name } : { name }, roleRef: { apiGroup: g, ...roleRef }, subjects }) as unknown as KObject;
const U = (name: string) => ({ kind: "User", apiGroup: g, name });
const G = (name: string) => ({ kind: "Group", apiGroup: g, name });

/** The policy every case runs against. */
export function conformancePolicy(): RbacIndex {
  const ix = new RbacIndex();
  ix.putClusterRole(clusterRole("pod-reader", [{ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods"] }]));
  ix.putClusterRole(clusterRole("log-reader", [{ verbs: ["get"], apiGroups: [""], resources: ["pods/log"] }]));
  ix.putClusterRole(clusterRole("any-status", [{ verbs: ["update"], apiGroups: ["*"], resources: ["*/status"] }]));
  ix.putClusterRole(clusterRole("one-cm", [{ verbs: ["get", "update"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["app-config"] }]));
  ix.putClusterRole(clusterRole("health", [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/logs/*"] }]));
  ix.putClusterRole(clusterRole("star", [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }]));
  ix.putRole(role("team-a", "deployer", [{ verbs: ["create", "delete"], apiGroups: ["apps"], resources: ["deployments"] }]));
  ix.putClusterRoleBinding(binding("", "alice-pods", { kind: "ClusterRole", name: "pod-reader" }, [U("alice")]));
  ix.putClusterRoleBinding(binding("", "ops-health", { kind: "ClusterRole", name: "health" }, [G("ops")]));
  ix.putClusterRoleBinding(binding("", "ghost", { kind: "ClusterRole", name: "missing-role" }, [U("gina")]));
  ix.putClusterRoleBinding(binding("", "sa-status", { kind: "ClusterRole", name: "any-status" }, [{ kind: "ServiceAccount", name: "ctl", namespace: "kube-system" }]));
  ix.putRoleBinding(binding("team-a", "bob-deployer", { kind: "Role", name: "deployer" }, [U("bob")]));
  ix.putRoleBinding(binding("team-a", "bob-logs", { kind: "ClusterRole", name: "log-reader" }, [U("bob")]));
  ix.putRoleBinding(binding("team-a", "local-sa", { kind: "ClusterRole", name: "one-cm" }, [{ kind: "ServiceAccount", name: "builder" }]));
  ix.putRoleBinding(binding("team-a", "team-star", { kind: "ClusterRole", name: "star" }, [G("team-a-admins")]));
  ix.putRoleBinding(binding("team-a", "missing-local", { kind: "Role", name: "nope" }, [U("gina")]));
  return ix;
}

const user = (name: string, groups: string[] = ["system:authenticated"]): UserInfo => ({ name, groups });
const res = (verb: string, resource: string, o: Partial<Attributes> = {}): Partial<Attributes> => ({ verb, resource, isResourceRequest: true, apiVersion: "v1", ...o });

export const rbacConformanceCases: RbacCase[] = [
  { title: "ClusterRoleBinding to a User: get pods anywhere", attributes: { user: user("alice"), ...res("get", "pods", { namespace: "x", name: "p" }) }, decision: "allow", reasonMatches: 'RBAC: allowed by ClusterRoleBinding "alice-pods" of ClusterRole "pod-reader" to User "alice"' },
  { title: "cluster-wide list of pods", attributes: { user: user("alice"), ...res("list", "pods") }, decision: "allow" },
  { title: "verb not granted", attributes: { user: user("alice"), ...res("delete", "pods", { namespace: "x", name: "p" }) }, decision: "no-opinion", reasonMatches: /^$/, error: false },
  { title: "subresource needs its own rule", attributes: { user: user("alice"), ...res("get", "pods", { namespace: "x", name: "p", subresource: "log" }) }, decision: "no-opinion" },
  { title: "another API group", attributes: { user: user("alice"), ...res("get", "pods", { namespace: "x", apiGroup: "metrics.k8s.io" }) }, decision: "no-opinion" },
  { title: "nobody bound", attributes: { user: user("mallory"), ...res("get", "pods", { namespace: "x" }) }, decision: "no-opinion", reasonMatches: /^$/ },
  { title: "RoleBinding to a Role: in its namespace", attributes: { user: user("bob"), ...res("create", "deployments", { namespace: "team-a", apiGroup: "apps" }) }, decision: "allow", reasonMatches: 'RBAC: allowed by RoleBinding "bob-deployer/team-a" of Role "deployer" to User "bob"' },
  { title: "RoleBinding to a Role: not in another namespace", attributes: { user: user("bob"), ...res("create", "deployments", { namespace: "team-b", apiGroup: "apps" }) }, decision: "no-opinion" },
  { title: "RoleBinding to a ClusterRole grants only in the binding's namespace", attributes: { user: user("bob"), ...res("get", "pods", { namespace: "team-a", name: "p", subresource: "log" }) }, decision: "allow", reasonMatches: 'of ClusterRole "log-reader"' },
  { title: "RoleBinding to a ClusterRole: nothing elsewhere", attributes: { user: user("bob"), ...res("get", "pods", { namespace: "team-b", name: "p", subresource: "log" }) }, decision: "no-opinion" },
  { title: "RoleBinding to a ClusterRole: nothing cluster-wide", attributes: { user: user("bob"), ...res("get", "pods", { name: "p", subresource: "log" }) }, decision: "no-opinion" },
  { title: "*/status matches any resource's status", attributes: { user: user("system:serviceaccount:kube-system:ctl"), ...res("update", "deployments", { namespace: "a", apiGroup: "apps", name: "d", subresource: "status" }) }, decision: "allow", reasonMatches: 'to ServiceAccount "ctl/kube-system"' },
  { title: "*/status is not the resource itself", attributes: { user: user("system:serviceaccount:kube-system:ctl"), ...res("update", "deployments", { namespace: "a", apiGroup: "apps", name: "d" }) }, decision: "no-opinion" },
  { title: "*/status is not another subresource", attributes: { user: user("system:serviceaccount:kube-system:ctl"), ...res("update", "deployments", { namespace: "a", apiGroup: "apps", name: "d", subresource: "scale" }) }, decision: "no-opinion" },
  { title: "a service account subject without namespace takes the binding's", attributes: { user: user("system:serviceaccount:team-a:builder"), ...res("get", "configmaps", { namespace: "team-a", name: "app-config" }) }, decision: "allow", reasonMatches: 'to ServiceAccount "builder/team-a"' },
  { title: "same name in another namespace is another service account", attributes: { user: user("system:serviceaccount:team-b:builder"), ...res("get", "configmaps", { namespace: "team-a", name: "app-config" }) }, decision: "no-opinion" },
  { title: "resourceNames restrict", attributes: { user: user("system:serviceaccount:team-a:builder"), ...res("get", "configmaps", { namespace: "team-a", name: "other" }) }, decision: "no-opinion" },
  { title: "resourceNames do not allow list (no name)", attributes: { user: user("system:serviceaccount:team-a:builder"), ...res("list", "configmaps", { namespace: "team-a" }) }, decision: "no-opinion" },
  { title: "Group subject, non-resource URL exact", attributes: { user: user("carol", ["ops"]), verb: "get", isResourceRequest: false, path: "/healthz" }, decision: "allow", reasonMatches: 'to Group "ops"' },
  { title: "non-resource URL with a trailing *", attributes: { user: user("carol", ["ops"]), verb: "get", isResourceRequest: false, path: "/logs/kube.log" }, decision: "allow" },
  { title: "non-resource URL prefix without *", attributes: { user: user("carol", ["ops"]), verb: "get", isResourceRequest: false, path: "/healthz/ping" }, decision: "no-opinion" },
  { title: "non-resource URL, wrong verb", attributes: { user: user("carol", ["ops"]), verb: "post", isResourceRequest: false, path: "/healthz" }, decision: "no-opinion" },
  { title: "* wildcards for verbs, groups and resources", attributes: { user: user("dan", ["team-a-admins"]), ...res("deletecollection", "widgets", { namespace: "team-a", apiGroup: "example.com" }) }, decision: "allow" },
  { title: "* resources cover subresources", attributes: { user: user("dan", ["team-a-admins"]), ...res("create", "pods", { namespace: "team-a", name: "p", subresource: "exec" }) }, decision: "allow" },
  { title: "a missing ClusterRole is reported in the reason", attributes: { user: user("gina"), ...res("get", "pods") }, decision: "no-opinion", reasonMatches: 'RBAC: clusterrole.rbac.authorization.k8s.io "missing-role" not found', error: false },
  {
    title: "missing roles in both scopes are listed together",
    attributes: { user: user("gina"), ...res("get", "pods", { namespace: "team-a" }) },
    decision: "no-opinion",
    reasonMatches: 'RBAC: [clusterrole.rbac.authorization.k8s.io "missing-role" not found, role.rbac.authorization.k8s.io "nope" not found]',
  },
];
