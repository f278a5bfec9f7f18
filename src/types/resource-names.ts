// Hand-maintained facts about the built-in resources of kube-apiserver 1.34 that
// the OpenAPI document does not carry: short names, categories, which
// group-versions are enabled by default and each group's version priority.
//
// These are facts written by the kapi project (as `kubectl api-resources` and
// `kubectl api-versions` show them on a default 1.34 cluster); nothing here is
// generated or copied from upstream files.

/** Key of a group-resource in the upstream `resource.group` notation ("pods", "deployments.apps"). */
export function groupResourceKey(group: string, resource: string): string {
  return group === "" ? resource : `${resource}.${group}`;
}

export interface ResourceNameFacts {
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
}

const ALL = ["all"] as const;
const API_EXTENSIONS = ["api-extensions"] as const;

/**
 * Short names and categories per group-resource (the same in every version of a group).
 * Resources not listed have neither.
 */
export const resourceNames: Readonly<Record<string, ResourceNameFacts>> = {
  // core
  componentstatuses: { shortNames: ["cs"] },
  configmaps: { shortNames: ["cm"] },
  endpoints: { shortNames: ["ep"] },
  events: { shortNames: ["ev"] },
  limitranges: { shortNames: ["limits"] },
  namespaces: { shortNames: ["ns"] },
  nodes: { shortNames: ["no"] },
  persistentvolumeclaims: { shortNames: ["pvc"] },
  persistentvolumes: { shortNames: ["pv"] },
  pods: { shortNames: ["po"], categories: ALL },
  replicationcontrollers: { shortNames: ["rc"], categories: ALL },
  resourcequotas: { shortNames: ["quota"] },
  serviceaccounts: { shortNames: ["sa"] },
  services: { shortNames: ["svc"], categories: ALL },

  // admissionregistration.k8s.io
  "mutatingwebhookconfigurations.admissionregistration.k8s.io": { categories: API_EXTENSIONS },
  "validatingwebhookconfigurations.admissionregistration.k8s.io": { categories: API_EXTENSIONS },
  "validatingadmissionpolicies.admissionregistration.k8s.io": { categories: API_EXTENSIONS },
  "validatingadmissionpolicybindings.admissionregistration.k8s.io": { categories: API_EXTENSIONS },
  "mutatingadmissionpolicies.admissionregistration.k8s.io": { categories: API_EXTENSIONS },
  "mutatingadmissionpolicybindings.admissionregistration.k8s.io": { categories: API_EXTENSIONS },

  // apiextensions.k8s.io
  "customresourcedefinitions.apiextensions.k8s.io": { shortNames: ["crd", "crds"], categories: API_EXTENSIONS },

  // apiregistration.k8s.io
  "apiservices.apiregistration.k8s.io": { categories: API_EXTENSIONS },

  // apps
  "daemonsets.apps": { shortNames: ["ds"], categories: ALL },
  "deployments.apps": { shortNames: ["deploy"], categories: ALL },
  "replicasets.apps": { shortNames: ["rs"], categories: ALL },
  "statefulsets.apps": { shortNames: ["sts"], categories: ALL },

  // autoscaling
  "horizontalpodautoscalers.autoscaling": { shortNames: ["hpa"], categories: ALL },

  // batch
  "cronjobs.batch": { shortNames: ["cj"], categories: ALL },
  "jobs.batch": { categories: ALL },

  // certificates.k8s.io
  "certificatesigningrequests.certificates.k8s.io": { shortNames: ["csr"] },

  // events.k8s.io
  "events.events.k8s.io": { shortNames: ["ev"] },

  // networking.k8s.io
  "ingresses.networking.k8s.io": { shortNames: ["ing"] },
  "ipaddresses.networking.k8s.io": { shortNames: ["ip"] },
  "networkpolicies.networking.k8s.io": { shortNames: ["netpol"] },

  // policy
  "poddisruptionbudgets.policy": { shortNames: ["pdb"] },

  // scheduling.k8s.io
  "priorityclasses.scheduling.k8s.io": { shortNames: ["pc"] },

  // storage.k8s.io
  "storageclasses.storage.k8s.io": { shortNames: ["sc"] },
  "volumeattributesclasses.storage.k8s.io": { shortNames: ["vac"] },
};

/**
 * Version priority of every built-in group, highest first (upstream's
 * `SetVersionPriority` order: GA before beta before alpha, newer first). The
 * preferred version of a group is the first enabled version in this list.
 */
export const groupVersionPriority: Readonly<Record<string, readonly string[]>> = {
  "": ["v1"],
  "admissionregistration.k8s.io": ["v1", "v1beta1", "v1alpha1"],
  "apiextensions.k8s.io": ["v1"],
  "apiregistration.k8s.io": ["v1"],
  apps: ["v1"],
  "authentication.k8s.io": ["v1", "v1beta1", "v1alpha1"],
  "authorization.k8s.io": ["v1"],
  autoscaling: ["v2", "v1"],
  batch: ["v1"],
  "certificates.k8s.io": ["v1", "v1beta1", "v1alpha1"],
  "coordination.k8s.io": ["v1", "v1beta1", "v1alpha2"],
  "discovery.k8s.io": ["v1"],
  "events.k8s.io": ["v1"],
  "flowcontrol.apiserver.k8s.io": ["v1"],
  "internal.apiserver.k8s.io": ["v1alpha1"],
  "networking.k8s.io": ["v1", "v1beta1"],
  "node.k8s.io": ["v1"],
  policy: ["v1"],
  "rbac.authorization.k8s.io": ["v1"],
  "resource.k8s.io": ["v1", "v1beta2", "v1beta1", "v1alpha3"],
  "scheduling.k8s.io": ["v1"],
  "storage.k8s.io": ["v1", "v1beta1", "v1alpha1"],
  "storagemigration.k8s.io": ["v1alpha1"],
};

/**
 * Order of the groups in the `/apis` discovery document of kube-apiserver (the
 * aggregator's group priority, highest first; "" is served at `/api`).
 * Groups not listed (custom resources, aggregated APIs) come after these.
 */
export const groupDiscoveryOrder: readonly string[] = [
  "",
  "apiregistration.k8s.io",
  "apps",
  "events.k8s.io",
  "authentication.k8s.io",
  "authorization.k8s.io",
  "autoscaling",
  "batch",
  "certificates.k8s.io",
  "networking.k8s.io",
  "policy",
  "rbac.authorization.k8s.io",
  "storage.k8s.io",
  "admissionregistration.k8s.io",
  "apiextensions.k8s.io",
  "scheduling.k8s.io",
  "coordination.k8s.io",
  "node.k8s.io",
  "discovery.k8s.io",
  "flowcontrol.apiserver.k8s.io",
  "internal.apiserver.k8s.io",
  "resource.k8s.io",
  "storagemigration.k8s.io",
];

/**
 * Beta group-versions that kube-apiserver 1.34 still enables by default. Since
 * 1.24 new beta APIs are off by default; the last legacy exception
 * (flowcontrol.apiserver.k8s.io/v1beta3) was removed in 1.32, so none remain.
 */
export const legacyBetaEnabledByDefault: readonly string[] = [];

/** Stability level of an API version string ("v1" → ga, "v1beta2" → beta, "v1alpha1" → alpha). */
export function versionLevel(version: string): "ga" | "beta" | "alpha" {
  if (/^v\d+alpha\d+$/.test(version)) return "alpha";
  if (/^v\d+beta\d+$/.test(version)) return "beta";
  return "ga";
}

function groupVersionKey(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

/**
 * Whether kube-apiserver 1.34 serves `group/version` without `--runtime-config`:
 * every GA version of a built-in group is on; alpha and beta versions are off
 * (unless listed in {@link legacyBetaEnabledByDefault}).
 */
export function isGroupVersionEnabledByDefault(group: string, version: string): boolean {
  const versions = groupVersionPriority[group];
  if (!versions || !versions.includes(version)) return false;
  if (versionLevel(version) === "ga") return true;
  return legacyBetaEnabledByDefault.includes(groupVersionKey(group, version));
}

/**
 * Preferred version of a built-in group: the first version in upstream priority
 * order for which `isEnabled` holds (default: enabled by default in 1.34).
 */
export function preferredVersionOf(
  group: string,
  isEnabled: (group: string, version: string) => boolean = isGroupVersionEnabledByDefault,
): string | undefined {
  return (groupVersionPriority[group] ?? []).find((v) => isEnabled(group, v));
}

/** Short names and categories of a group-resource (empty arrays when it has none). */
export function namesOf(group: string, resource: string): { shortNames: readonly string[]; categories: readonly string[] } {
  const facts = resourceNames[groupResourceKey(group, resource)];
  return { shortNames: facts?.shortNames ?? [], categories: facts?.categories ?? [] };
}
