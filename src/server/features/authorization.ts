// Authorization as feature modules: the chain (--authorization-mode with its mode flags, or
// --authorization-config; reloads and metrics: src/authz/modes.ts), built from the modes the
// other modules provide: RBAC (with the escalation guard, the default policy and the aggregation
// controller) and the Node authorizer.
import { reconcileBootstrapPolicy } from "../../authz/bootstrap-policy/index.js";
import { checkAuthorizationFlags, setupAuthorization, type AuthorizationSetup } from "../../authz/modes.js";
import { createNodeAuthorizer, type NodeAuthorizerWithGraph } from "../../authz/node/index.js";
import { setupRbac } from "../../authz/rbac/setup.js";
import { defaultControllers } from "../../controller-runtime/controllers-flag.js";
import { authorizationFlags } from "./authorization-flags.js";
import type { FeatureModule } from "./feature-module.js";

/** The authorizer chain every caller asks (the filter, impersonation, admission, the access reviews). */
export function authorizationChainFeature(): FeatureModule {
  return {
    name: "authorization",
    flags: authorizationFlags,
    checkFlags: (o) => checkAuthorizationFlags(o),
    setup({ options, gates, log }) {
      let chain: AuthorizationSetup | undefined;
      return {
        authorizer: (_core, modes) => (chain = setupAuthorization(options, modes, { authorizeWithSelectors: gates.enabled("AuthorizeWithSelectors"), log })),
        registerMetrics: (metrics) => metrics.register(...chain!.metrics.families),
        stop: () => chain?.stop(),
      };
    },
  };
}

/**
 * RBAC: the authorizer (an index over its informers), the escalation guard (first in the
 * admission chain and in every mode, as upstream checks escalation in RBAC's storage), the
 * default roles and bindings whenever the RBAC API is served, the ClusterRole aggregation controller.
 */
export function rbacFeature(): FeatureModule {
  return {
    name: "rbac",
    setup({ options, gates, core, log }) {
      const rbac = setupRbac({ parts: core, log, prewarm: options.authorizationMode.includes("RBAC") || options.authorizationConfig !== undefined });
      return {
        authorizationModes: () => ({ rbac: () => rbac.authorizer }),
        admissionPlugins: (ctx) => [rbac.escalationGuard(ctx.authorizer)],
        bootstrap: ({ stores, types }) => reconcileBootstrapPolicy({ stores, types, log, gates }),
        replicaControllers: () => rbac.startIndex(),
        controllers: () => rbac.startControllers(options.controllers ?? defaultControllers),
      };
    },
  };
}

/**
 * The Node authorizer keeps a graph over its informers: made only when a mode asks for it, its
 * populator started with the other controllers (requests are served only after that).
 */
export function nodeAuthorizerFeature(): FeatureModule {
  return {
    name: "node-authorizer",
    setup({ gates }) {
      let node: NodeAuthorizerWithGraph | undefined;
      return {
        authorizationModes: ({ informers, types }) => ({ node: () => (node = createNodeAuthorizer({ informers, types, gates })) }),
        replicaControllers: () => (node ? [node.startPopulator()] : []),
      };
    },
  };
}
