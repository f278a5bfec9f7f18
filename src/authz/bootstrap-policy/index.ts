// kube-apiserver 1.34's RBAC bootstrap policy: every default ClusterRole, ClusterRoleBinding, Role
// and RoleBinding, and their reconciliation at start (reconcileBootstrapPolicy, called once from
// the server's start-up whenever the RBAC API is served, whatever the authorization modes).
import type { FeatureGates } from "../../apimachinery/feature-gates.js";
import type { Stores } from "../../registry/stores.js";
import { controllerRoleBindings, controllerRoles } from "./controller-policy.js";
import { policyGates } from "./gates.js";
import { namespaceRoleBindings, namespaceRoles } from "./namespace-policy.js";
import { clusterRoleBindings, clusterRoles } from "./policy.js";
import { reconcileObjects, type DefaultObjects, type ReconcileSummary, type TypeLookup } from "./reconcile.js";

export { clusterRoles, clusterRoleBindings, nodeRules } from "./policy.js";
export { controllerRoles, controllerRoleBindings, controllerRolePrefix } from "./controller-policy.js";
export { namespaceRoles, namespaceRoleBindings } from "./namespace-policy.js";
export { policyGates, policyGateDefaults } from "./gates.js";
export { covers, breakdownRule } from "./covers.js";
export { reconcileRole, reconcileBinding, reconcileObjects, type ReconcileSummary } from "./reconcile.js";
export { autoUpdateAnnotation, bootstrapLabel, bootstrapLabelValue, type PolicyRule, type RoleObject, type BindingObject, type Subject } from "./rules.js";

/** Every default object, as 1.34 creates them with these feature gates. */
export function bootstrapPolicy(gates?: FeatureGates): DefaultObjects {
  const enabled = policyGates(gates);
  return {
    clusterRoles: [...clusterRoles(enabled), ...controllerRoles(enabled)],
    clusterRoleBindings: [...clusterRoleBindings(enabled), ...controllerRoleBindings(enabled)],
    roles: namespaceRoles(),
    roleBindings: namespaceRoleBindings(),
  };
}

/**
 * Creates the missing default RBAC objects and restores what the present ones lack (see
 * reconcile.ts), as the system: no authorization, admission as for any server write.
 */
export async function reconcileBootstrapPolicy(deps: { stores: Stores; types: TypeLookup; log: (msg: string) => void; gates?: FeatureGates }): Promise<ReconcileSummary> {
  const t0 = Date.now();
  // Built only when needed: a first start from kept forms writes the batch without building it.
  const summary = await reconcileObjects(deps, { batch: "rbac/bootstrap-policy", build: () => bootstrapPolicy(deps.gates) });
  if (summary.created || summary.updated || summary.recreated) {
    deps.log(`kapi: RBAC bootstrap policy: ${summary.created} created, ${summary.updated} updated, ${summary.recreated} recreated, ${summary.protected} protected, in ${Date.now() - t0} ms`);
  }
  return summary;
}
