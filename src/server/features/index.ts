// The features one server assembles, in order. The order is what start-up's phases follow:
// flag checks (the authorization flags, the service ranges, then admission names before the
// authentication configuration), setup (service accounts before the methods that take their
// audiences), the admission chain (RBAC's escalation guard before the named plugins), the start
// of controllers, the non-resource handlers (health, version and metrics, then discovery), the
// encodings offered (protobuf before CBOR). The authentication union has its own order
// (feature-module.ts).
import { admissionPluginsFeature } from "./admission.js";
import { aggregatorFeature } from "./aggregator.js";
import { auditFeature } from "./audit.js";
import { authenticationConfigFeature, authenticationMethodsFeature, bootstrapTokensFeature, serviceAccountsFeature, tokenFileFeature } from "./authentication.js";
import { authorizationChainFeature, nodeAuthorizerFeature, rbacFeature } from "./authorization.js";
import {
  accessReviewsFeature,
  cborFeature,
  defaultServiceCIDRFeature,
  discoveryFeature,
  kubernetesServiceFeature,
  podSubresourcesFeature,
  protobufFeature,
  scaleFeature,
  systemNamespacesFeature,
  systemPriorityClassesFeature,
} from "./builtin-api.js";
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
import { leaderElectionFeature } from "./leader-election.js";
import { observabilityFeature } from "./observability.js";
import { etcdStorageFeature } from "./etcd-storage.js";
import { priorityAndFairnessFeature } from "./priority-and-fairness.js";

/** A fresh set of the server's feature modules (a module may keep state for one server). */
export function serverFeatures(): FeatureModule[] {
  // Discovery lists the aggregator's extension servers with this server's groups.
  const aggregator = aggregatorFeature();
  return [
    authorizationChainFeature(),
    observabilityFeature(),
    auditFeature(),
    etcdStorageFeature(),
    systemNamespacesFeature(),
    kubernetesServiceFeature(),
    defaultServiceCIDRFeature(),
    protobufFeature(),
    cborFeature(),
    discoveryFeature(aggregator.discovery),
    scaleFeature(),
    podSubresourcesFeature(),
    accessReviewsFeature(),
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
    aggregator,
    priorityAndFairnessFeature(),
    leaderElectionFeature(),
  ];
}
