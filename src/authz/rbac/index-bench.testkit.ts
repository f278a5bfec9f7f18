// Decisions per second from the RBAC index (the figure for issue 13): a policy of `roles`
// Roles/ClusterRoles and `bindings` RoleBindings/ClusterRoleBindings spread over namespaces
// and users, then a loop of decisions (a mix of allows and no-opinions) for a fixed time.
// Used by bench/rbac-index.ts and printed by index-bench.test.ts; never asserts on timing.
import type { UserInfo } from "../../apimachinery/user.js";
import type { KObject } from "../../apimachinery/object.js";
import type { Attributes } from "../authorizer.js";
import { decide } from "./authorizer.js";
import { RbacIndex } from "./index.js";

const g = "rbac.authorization.k8s.io";

export interface IndexBenchResult {
  roles: number;
  bindings: number;
  decisions: number;
  allowed: number;
  ms: number;
  perSecond: number;
  buildMs: number;
}

export function buildBenchIndex(roles = 1000, bindings = 1000, namespaces = 100): RbacIndex {
  const ix = new RbacIndex();
  const clusterRoles = Math.floor(roles / 10);
  for (let i = 0; i < clusterRoles; i++) {
    ix.putClusterRole({ metadata: { name: `cr-${i}` }, rules: [
      { verbs: ["get", "list", "watch"], apiGroups: ["", "apps"], resources: [`res-${i}`, "pods", `res-${i}/status`] },
      { verbs: ["get"], nonResourceURLs: [`/custom/${i}/*`] },
    ] } as unknown as KObject);
  }
  for (let i = clusterRoles; i < roles; i++) {
    ix.putRole({ metadata: { namespace: `ns-${i % namespaces}`, name: `role-${i}` }, rules: [
      { verbs: ["create", "update", "delete"], apiGroups: ["apps"], resources: ["deployments", `thing-${i}`] },
      { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: [`cm-${i}`] },
    ] } as unknown as KObject);
  }
  const crbs = Math.floor(bindings / 10);
  for (let i = 0; i < crbs; i++) {
    ix.putClusterRoleBinding({ metadata: { name: `crb-${i}` }, roleRef: { apiGroup: g, kind: "ClusterRole", name: `cr-${i % clusterRoles}` },
      subjects: [{ kind: "User", name: `user-${i}` }, { kind: "Group", name: `group-${i % 20}` }] } as unknown as KObject);
  }
  for (let i = crbs; i < bindings; i++) {
    const roleIdx = clusterRoles + (i % (roles - clusterRoles));
    const ns = `ns-${roleIdx % namespaces}`;
    ix.putRoleBinding({ metadata: { namespace: ns, name: `rb-${i}` }, roleRef: { apiGroup: g, kind: "Role", name: `role-${roleIdx}` },
      subjects: [{ kind: "User", name: `user-${i % 500}` }, { kind: "ServiceAccount", name: `sa-${i}` }] } as unknown as KObject);
  }
  return ix;
}

export function measureDecisions(o: { roles?: number; bindings?: number; durationMs?: number } = {}): IndexBenchResult {
  const roles = o.roles ?? 1000;
  const bindings = o.bindings ?? 1000;
  const t0 = performance.now();
  const ix = buildBenchIndex(roles, bindings);
  const buildMs = performance.now() - t0;
  const base: Omit<Attributes, "user" | "verb" | "resource" | "namespace"> = { isResourceRequest: true, path: "", apiGroup: "apps", apiVersion: "v1", subresource: "", name: "" };
  const requests: Attributes[] = [];
  for (let i = 0; i < 1000; i++) {
    const user: UserInfo = { name: `user-${i % 600}`, groups: ["system:authenticated", `group-${i % 25}`] };
    requests.push({ ...base, user, verb: i % 3 === 0 ? "create" : "list", resource: i % 3 === 0 ? "deployments" : "pods", namespace: `ns-${i % 100}` });
  }
  const durationMs = o.durationMs ?? 1000;
  let decisions = 0;
  let allowed = 0;
  const start = performance.now();
  let now = start;
  while (now - start < durationMs) {
    for (let i = 0; i < 1000; i++) if (decide(ix, requests[i]!).decision === "allow") allowed++;
    decisions += 1000;
    now = performance.now();
  }
  const ms = now - start;
  return { roles, bindings, decisions, allowed, ms, perSecond: Math.round((decisions / ms) * 1000), buildMs };
}
