// The authorization modes other modules provide, as feature modules: RBAC (with the escalation
// guard, the default policy and the aggregation controller) and the Node authorizer. The chain
// itself (flags or --authorization-config, reload, metrics) is assembled by start-up from the
// modes the modules give (src/authz/modes.ts).
import { reconcileBootstrapPolicy } from "../../authz/bootstrap-policy/index.js";
import { createNodeAuthorizer, type RunningNodeAuthorizer } from "../../authz/node/index.js";
import { setupRbac } from "../../authz/rbac/setup.js";
import { defaultControllers } from "../../controller-runtime/controllers-flag.js";
import type { FeatureModule } from "./feature-module.js";

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
        bootstrap: ({ store, types }) => reconcileBootstrapPolicy({ store, types, log, gates }),
        controllers: () => rbac.startControllers(options.controllers ?? defaultControllers),
      };
    },
  };
}

/** The Node authorizer keeps a graph over its informers: made only when a mode asks for it. */
export function nodeAuthorizerFeature(): FeatureModule {
  return {
    name: "node-authorizer",
    setup({ gates }) {
      let node: RunningNodeAuthorizer | undefined;
      return {
        authorizationModes: ({ informers, types }) => ({ node: () => (node = createNodeAuthorizer({ informers, types, gates })) }),
        stop: () => node?.stop(),
      };
    },
  };
}
