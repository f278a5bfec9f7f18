// The features one server assembles, in order. The order is what start-up's phases follow:
// flag checks (admission names before the authentication configuration), setup (service
// accounts before the methods that take their audiences), the admission chain (RBAC's
// escalation guard before the named plugins), the start of controllers, and the non-resource
// handlers (discovery first), the encodings offered (protobuf before CBOR). The authentication union has its own order (feature-module.ts).
import { admissionPluginsFeature } from "./admission.js";
import { authenticationConfigFeature, authenticationMethodsFeature, bootstrapTokensFeature, serviceAccountsFeature, tokenFileFeature } from "./authentication.js";
import { nodeAuthorizerFeature, rbacFeature } from "./authorization.js";
import { cborFeature, discoveryFeature, podSubresourcesFeature, protobufFeature, scaleFeature, systemPriorityClassesFeature } from "./builtin-api.js";
import {
  customResourcesFeature,
  garbageCollectorFeature,
  namespaceLifecycleFeature,
  resourceQuotaFeature,
  rootCAPublisherFeature,
  storageProtectionFeature,
  validatingAdmissionPolicyStatusFeature,
} from "./controllers.js";
import type { FeatureModule } from "./feature-module.js";

/** A fresh set of the server's feature modules (a module may keep state for one server). */
export function serverFeatures(): FeatureModule[] {
  return [
    protobufFeature(),
    cborFeature(),
    discoveryFeature(),
    scaleFeature(),
    podSubresourcesFeature(),
    customResourcesFeature(),
    namespaceLifecycleFeature(),
    serviceAccountsFeature(),
    rbacFeature(),
    nodeAuthorizerFeature(),
    admissionPluginsFeature(),
    authenticationConfigFeature(),
    authenticationMethodsFeature(),
    tokenFileFeature(),
    storageProtectionFeature(),
    rootCAPublisherFeature(),
    resourceQuotaFeature(),
    validatingAdmissionPolicyStatusFeature(),
    bootstrapTokensFeature(),
    systemPriorityClassesFeature(),
    garbageCollectorFeature(),
  ];
}
