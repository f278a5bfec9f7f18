// The static rules every node gets for what the graph does not decide (upstream: bootstrappolicy
// NodeRules(), the same rules as the system:node ClusterRole, with 1.34's default gates: DRA on,
// ClusterTrustBundle and PodCertificateRequest off). The Node authorizer itself evaluates them —
// upstream does not leave them to RBAC (the system:node ClusterRole exists but is bound to nobody
// by default).
import type { Attributes, ResourceRule } from "../authorizer.js";

const read = ["get", "list", "watch"];

export function nodeRules(): ResourceRule[] {
  return [
    // Access checks (non-mutating creates).
    { verbs: ["create"], apiGroups: ["authentication.k8s.io"], resources: ["tokenreviews"] },
    { verbs: ["create"], apiGroups: ["authorization.k8s.io"], resources: ["subjectaccessreviews", "localsubjectaccessreviews"] },
    // Environment variables of services.
    { verbs: read, apiGroups: [""], resources: ["services"] },
    // Registering and reporting (NodeRestriction limits these to the node's own object).
    { verbs: ["create", "get", "list", "watch"], apiGroups: [""], resources: ["nodes"] },
    { verbs: ["update", "patch"], apiGroups: [""], resources: ["nodes/status"] },
    { verbs: ["update", "patch"], apiGroups: [""], resources: ["nodes"] },
    { verbs: ["create", "update", "patch"], apiGroups: [""], resources: ["events"] },
    { verbs: read, apiGroups: [""], resources: ["pods"] },
    { verbs: ["create", "delete"], apiGroups: [""], resources: ["pods"] },
    { verbs: ["update", "patch"], apiGroups: [""], resources: ["pods/status"] },
    { verbs: ["create"], apiGroups: [""], resources: ["pods/eviction"] },
    { verbs: read, apiGroups: [""], resources: ["secrets", "configmaps"] },
    { verbs: ["get"], apiGroups: [""], resources: ["persistentvolumeclaims", "persistentvolumes"] },
    { verbs: ["get"], apiGroups: [""], resources: ["endpoints"] },
    // TLS bootstrap and certificate rotation.
    { verbs: ["create", "get", "list", "watch"], apiGroups: ["certificates.k8s.io"], resources: ["certificatesigningrequests"] },
    { verbs: ["get", "create", "update", "patch", "delete"], apiGroups: ["coordination.k8s.io"], resources: ["leases"] },
    { verbs: ["get"], apiGroups: ["storage.k8s.io"], resources: ["volumeattachments"] },
    { verbs: ["create"], apiGroups: [""], resources: ["serviceaccounts/token"] },
    { verbs: ["get", "update", "patch"], apiGroups: [""], resources: ["persistentvolumeclaims/status"] },
    { verbs: ["get", "watch", "list"], apiGroups: ["storage.k8s.io"], resources: ["csidrivers"] },
    { verbs: ["get", "create", "update", "patch", "delete"], apiGroups: ["storage.k8s.io"], resources: ["csinodes"] },
    { verbs: read, apiGroups: ["node.k8s.io"], resources: ["runtimeclasses"] },
    // DynamicResourceAllocation (GA in 1.34).
    { verbs: ["get"], apiGroups: ["resource.k8s.io"], resources: ["resourceclaims"] },
    { verbs: ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"], apiGroups: ["resource.k8s.io"], resources: ["resourceslices"] },
  ];
}

/** RBAC's rule match for a resource request (no resourceNames in these rules). */
export function rulesAllow(a: Attributes, rules: readonly ResourceRule[]): boolean {
  if (!a.isResourceRequest) return false;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return rules.some(
    (r) =>
      (r.verbs.includes("*") || r.verbs.includes(a.verb)) &&
      (r.apiGroups ?? []).some((g) => g === "*" || g === a.apiGroup) &&
      (r.resources ?? []).some((res) => res === "*" || res === combined || (a.subresource !== "" && res === `*/${a.subresource}`)) &&
      (!r.resourceNames || r.resourceNames.length === 0 || r.resourceNames.includes(a.name)),
  );
}
