// RBAC in one call from the server's assembly: the authorizer (index over the four informers,
// started on first use), the escalation guard (a validating admission plugin, installed in
// every mode as upstream's RBAC storage always checks) and the ClusterRole aggregation
// controller (--controllers name clusterrole-aggregation-controller).
import type { AdmissionPlugin } from "../../registry/admission.js";
import { clusterRoleAggregationController, controllerEnabled, defaultControllers } from "../../controller-runtime/controllers-flag.js";
import type { Controller } from "../../controller-runtime/controller.js";
import type { InformerFactory } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import type { Stores } from "../../registry/stores.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import type { Authorizer } from "../authorizer.js";
import { startClusterRoleAggregation } from "./aggregation.js";
import { createRbacAuthorizer, type RbacAuthorizer } from "./authorizer.js";
import { rbacEscalationGuard } from "./escalation.js";
import type { RbacInformers } from "./index.js";

export const rbacGroup = "rbac.authorization.k8s.io";

export interface RbacParts {
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
}

export interface RbacSetup {
  /** The RBAC authorizer, for the mode list ("RBAC"). */
  authorizer: RbacAuthorizer;
  /** The escalation guard, asking `chain` (the server's whole authorizer) for escalate and bind. */
  escalationGuard(chain: () => Authorizer): AdmissionPlugin;
  /** Builds the index now when RBAC is a mode (the first request need not wait); no controller of its own. */
  startIndex(): Controller[];
  /** The aggregation controller when --controllers enables it. */
  startControllers(controllers?: readonly string[]): Controller[];
}

/** The informers of the four types (a type not served is left out). */
export function rbacInformers(p: Pick<RbacParts, "types" | "informers">): RbacInformers {
  const inf = (r: string) => {
    const t = p.types.get(rbacGroup, "v1", r);
    return t ? p.informers.forType(t) : undefined;
  };
  return { roles: inf("roles"), clusterRoles: inf("clusterroles"), roleBindings: inf("rolebindings"), clusterRoleBindings: inf("clusterrolebindings") };
}

export function setupRbac(d: { parts(): RbacParts; log?: (msg: string) => void; /** RBAC is an authorization mode: build the index at start. */ prewarm?: boolean }): RbacSetup {
  const authorizer = createRbacAuthorizer({ informers: () => rbacInformers(d.parts()) });
  return {
    authorizer,
    escalationGuard: (chain) =>
      rbacEscalationGuard({
        authorizer: chain,
        index: async () => {
          await authorizer.ready();
          return authorizer.index;
        },
        getRole: async (kind, ns, name) => {
          const { stores, types } = d.parts();
          const t = types.get(rbacGroup, "v1", kind === "Role" ? "roles" : "clusterroles");
          if (!t || !name) return undefined;
          return stores.for(t).get(ns, name).catch((e: { reason?: string }) => {
            if (e?.reason === "NotFound") return undefined;
            throw e;
          }) as Promise<KObject | undefined>;
        },
      }),
    startIndex() {
      if (d.prewarm) void authorizer.ready();
      return [];
    },
    startControllers(list = defaultControllers) {
      const { stores, types, informers } = d.parts();
      const t = types.get(rbacGroup, "v1", "clusterroles");
      if (!t || !controllerEnabled(clusterRoleAggregationController, list)) return [];
      return [startClusterRoleAggregation({ stores, clusterRolesType: t, clusterRoles: informers.forType(t), log: d.log })];
    },
  };
}
