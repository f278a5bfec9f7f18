// The escalation guard on RBAC writes (upstream pkg/registry/rbac/{role,clusterrole,rolebinding,
// clusterrolebinding}/policybased with validation.ConfirmNoEscalation and BindingAuthorized),
// as a validating admission step: it sees the final object, the requesting user and the
// server's whole authorizer chain.
//
// - system:masters, and the server's own writes (no user), are never checked.
// - Role/ClusterRole create or update: allowed with the `escalate` verb on the resource (the
//   object's name on update; none on create, as upstream's request info has none); otherwise
//   every rule must be covered by the user's own RBAC rules at that scope (the role's namespace,
//   or cluster-wide), else 403 listing what is missing. Setting or changing an aggregationRule
//   needs full authority ("must have cluster-admin privileges to use the aggregationRule").
// - RoleBinding/ClusterRoleBinding create or update: allowed with `bind` on the referenced role
//   (checked in the binding's namespace); otherwise the role's rules must be covered as above;
//   a role that cannot be resolved → 403 naming it.
// - An update changing only ownerReferences/finalizers (the garbage collector's) passes.
import { forbidden } from "../../apimachinery/errors.js";
import { deepEqual } from "../../apimachinery/json-value.js";
import { mastersGroup, type UserInfo } from "../../apimachinery/user.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../../registry/admission.js";
import type { KObject } from "../../apimachinery/object.js";
import type { Authorizer } from "../authorizer.js";
import { aggregateMessage, roleNotFound, type RbacIndex } from "./index.js";
import { goQuoteList } from "../../apimachinery/go-quote.js";
import { compactRules, compactString, covers, toPolicyRule, type PolicyRule } from "./rules.js";
import { goQuote } from "../../apimachinery/go-quote.js";

const rbacGroup = "rbac.authorization.k8s.io";

export interface EscalationGuardDeps {
  /** The server's authorizer chain (escalate and bind checks). */
  authorizer(): Authorizer;
  /** The RBAC index (the user's own rules), ready. */
  index(): Promise<RbacIndex>;
  /** A live read of a role ("" namespace for cluster roles): the referenced role of a binding. */
  getRole(kind: "Role" | "ClusterRole", namespace: string, name: string): Promise<KObject | undefined>;
}

const fullAuthority: PolicyRule[] = [
  { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
  { verbs: ["*"], nonResourceURLs: ["*"] },
];

const rulesOf = (o: KObject | undefined): PolicyRule[] => {
  const rules = (o as { rules?: unknown } | undefined)?.rules;
  return Array.isArray(rules) ? rules.map(toPolicyRule) : [];
};

const hasAggregationRule = (o: KObject | undefined) => {
  const sel = (o as { aggregationRule?: { clusterRoleSelectors?: unknown } } | undefined)?.aggregationRule?.clusterRoleSelectors;
  return Array.isArray(sel) && sel.length > 0;
};

/** Upstream IsOnlyMutatingGCFields: nothing but ownerReferences and finalizers changed. */
export function onlyGCFields(obj: KObject, old: KObject | undefined): boolean {
  if (!old) return false;
  const strip = (o: KObject, from: KObject) => {
    const { resourceVersion: _rv, managedFields: _mf, generation: _g, ...meta } = o.metadata as Record<string, unknown>;
    const m2 = { ...meta, ownerReferences: (from.metadata as Record<string, unknown>).ownerReferences, finalizers: (from.metadata as Record<string, unknown>).finalizers };
    return { ...o, apiVersion: undefined, kind: undefined, metadata: JSON.parse(JSON.stringify(m2)) };
  };
  return deepEqual(JSON.parse(JSON.stringify(strip(obj, old))), JSON.parse(JSON.stringify(strip(old, old))));
}

/** Upstream ConfirmNoEscalation: the error text, or undefined when `user`'s rules cover `rules`. */
export function confirmNoEscalation(index: RbacIndex, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const owner = index.rulesFor(user, namespace, "registry");
  const { covered, missing } = covers(owner.rules, rules);
  if (covered) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${goQuote(user.name)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join("\n")}`;
  if (owner.errors.length > 0) msg += `; resolution errors: [${aggregateMessage(owner.errors)}]`;
  return msg;
}

async function allowed(z: Authorizer, user: UserInfo, verb: string, resource: string, namespace: string, name: string, apiGroup: string): Promise<boolean> {
  try {
    const r = await z.authorize({ user, verb, isResourceRequest: true, path: "", namespace, apiGroup, apiVersion: "*", resource, subresource: "", name });
    return r.decision === "allow";
  } catch {
    return false;
  }
}

export function rbacEscalationGuard(d: EscalationGuardDeps): AdmissionPlugin {
  return {
    name: "RBACEscalationGuard",
    operations: ["CREATE", "UPDATE"],
    async validate(a: AdmissionAttributes): Promise<void> {
      if (a.type.group !== rbacGroup || a.subresource !== "") return;
      const resource = a.type.resource;
      const user = a.user;
      if (!user || user.groups.includes(mastersGroup)) return;
      const obj = a.object;
      if (!obj) return;
      const gr = { group: rbacGroup, resource };
      const name = obj.metadata?.name ?? a.name ?? "";
      const ns = resource === "roles" || resource === "rolebindings" ? a.namespace : "";
      if (resource === "roles" || resource === "clusterroles") {
        if (await allowed(d.authorizer(), user, "escalate", resource, ns, a.operation === "UPDATE" ? a.name : "", rbacGroup)) return;
        if (a.operation === "UPDATE" && onlyGCFields(obj, a.oldObject)) return;
        const index = await d.index();
        const err = confirmNoEscalation(index, user, ns, rulesOf(obj));
        if (err) throw forbidden(gr, name, err);
        if (resource === "clusterroles" && (hasAggregationRule(obj) || (a.operation === "UPDATE" && hasAggregationRule(a.oldObject)))) {
          if (confirmNoEscalation(index, user, ns, fullAuthority)) throw forbidden(gr, name, "must have cluster-admin privileges to use the aggregationRule");
        }
        return;
      }
      if (resource === "rolebindings" || resource === "clusterrolebindings") {
        if (a.operation === "UPDATE" && onlyGCFields(obj, a.oldObject)) return;
        const ref = ((obj as { roleRef?: { kind?: unknown; name?: unknown; apiGroup?: unknown } }).roleRef ?? {}) as { kind?: unknown; name?: unknown; apiGroup?: unknown };
        const kind = ref.kind === "Role" || ref.kind === "ClusterRole" ? ref.kind : undefined;
        const refName = typeof ref.name === "string" ? ref.name : "";
        if (!kind) return; // validation refused it already
        if (await allowed(d.authorizer(), user, "bind", kind === "Role" ? "roles" : "clusterroles", ns, refName, typeof ref.apiGroup === "string" ? ref.apiGroup : "")) return;
        const role = await d.getRole(kind, kind === "Role" ? ns : "", refName);
        if (!role) throw forbidden(gr, name, roleNotFound(kind, refName, "registry"));
        const index = await d.index();
        const err = confirmNoEscalation(index, user, ns, rulesOf(role));
        if (err) throw forbidden(gr, name, err);
      }
    },
  };
}
