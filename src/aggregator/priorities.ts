// The group and version priorities of the built-in group versions (upstream: kube-apiserver 1.34's
// apiVersionPriorities, cmd/kube-apiserver/app/aggregator.go, merged over the control plane's
// DefaultGenericAPIServicePriorities, pkg/controlplane/apiserver/aggregator.go; where both name a
// group version, kube-apiserver's wins: resource.k8s.io's v1alpha3 is 16200/1, not 15900/9). A
// served built-in group version gets a local APIService with these numbers; one not listed gets
// none (upstream skips it, so that a CRD group version can never be stuck behind it).
// apiregistration.k8s.io is the aggregator's own group: it has no APIService and always comes
// first in /apis.

export interface APIServicePriority {
  group: number;
  version: number;
}

const table: Record<string, APIServicePriority> = {
  "v1.": { group: 18000, version: 1 },
  "v1.apps": { group: 17800, version: 15 },
  "v1.events.k8s.io": { group: 17750, version: 15 },
  "v1beta1.events.k8s.io": { group: 17750, version: 5 },
  "v1.authentication.k8s.io": { group: 17700, version: 15 },
  "v1beta1.authentication.k8s.io": { group: 17700, version: 9 },
  "v1alpha1.authentication.k8s.io": { group: 17700, version: 1 },
  "v1.authorization.k8s.io": { group: 17600, version: 15 },
  "v1.autoscaling": { group: 17500, version: 15 },
  "v2.autoscaling": { group: 17500, version: 30 },
  "v2beta1.autoscaling": { group: 17500, version: 9 },
  "v2beta2.autoscaling": { group: 17500, version: 1 },
  "v1.batch": { group: 17400, version: 15 },
  "v1beta1.batch": { group: 17400, version: 9 },
  "v2alpha1.batch": { group: 17400, version: 9 },
  "v1.certificates.k8s.io": { group: 17300, version: 15 },
  "v1beta1.certificates.k8s.io": { group: 17300, version: 9 },
  "v1alpha1.certificates.k8s.io": { group: 17300, version: 1 },
  "v1.networking.k8s.io": { group: 17200, version: 15 },
  "v1beta1.networking.k8s.io": { group: 17200, version: 9 },
  "v1.policy": { group: 17100, version: 15 },
  "v1beta1.policy": { group: 17100, version: 9 },
  "v1.rbac.authorization.k8s.io": { group: 17000, version: 15 },
  "v1.storage.k8s.io": { group: 16800, version: 15 },
  "v1beta1.storage.k8s.io": { group: 16800, version: 9 },
  "v1alpha1.storage.k8s.io": { group: 16800, version: 1 },
  "v1.apiextensions.k8s.io": { group: 16700, version: 15 },
  "v1.admissionregistration.k8s.io": { group: 16700, version: 15 },
  "v1beta1.admissionregistration.k8s.io": { group: 16700, version: 12 },
  "v1alpha1.admissionregistration.k8s.io": { group: 16700, version: 9 },
  "v1.scheduling.k8s.io": { group: 16600, version: 15 },
  "v1.coordination.k8s.io": { group: 16500, version: 15 },
  "v1beta1.coordination.k8s.io": { group: 16500, version: 13 },
  "v1alpha2.coordination.k8s.io": { group: 16500, version: 12 },
  "v1.node.k8s.io": { group: 16300, version: 15 },
  "v1beta1.node.k8s.io": { group: 16300, version: 9 },
  "v1alpha1.node.k8s.io": { group: 16300, version: 1 },
  "v1.discovery.k8s.io": { group: 16200, version: 15 },
  "v1beta1.discovery.k8s.io": { group: 16200, version: 12 },
  "v1.resource.k8s.io": { group: 16200, version: 21 },
  "v1beta2.resource.k8s.io": { group: 16200, version: 15 },
  "v1beta1.resource.k8s.io": { group: 16200, version: 9 },
  "v1alpha3.resource.k8s.io": { group: 16200, version: 1 },
  "v1.flowcontrol.apiserver.k8s.io": { group: 16100, version: 21 },
  "v1beta3.flowcontrol.apiserver.k8s.io": { group: 16100, version: 18 },
  // Removed versions (1.29 and before) that 1.34's table still names; kept as upstream keeps them.
  "v1beta2.flowcontrol.apiserver.k8s.io": { group: 16100, version: 15 },
  "v1beta1.flowcontrol.apiserver.k8s.io": { group: 16100, version: 12 },
  "v1alpha1.flowcontrol.apiserver.k8s.io": { group: 16100, version: 9 },
  "v1alpha1.internal.apiserver.k8s.io": { group: 16000, version: 9 },
  "v1alpha1.storagemigration.k8s.io": { group: 15800, version: 9 },
};

/** The APIService name of a group version: `<version>.<group>` (the core group's is `v1.`). */
export const apiServiceName = (group: string, version: string) => `${version}.${group}`;

/** The priorities of a built-in group version, or undefined when upstream registers none. */
export function builtinPriority(group: string, version: string): APIServicePriority | undefined {
  return table[apiServiceName(group, version)];
}

/**
 * Where a group served here ranks among the groups of /apis: its built-in APIServices' highest
 * group priority, a CRD group's 1000; the aggregator's own group first of all.
 */
export function localGroupPriority(group: string): number {
  if (group === "apiregistration.k8s.io") return Number.MAX_SAFE_INTEGER;
  let best: number | undefined;
  for (const [name, p] of Object.entries(table)) if (name.slice(name.indexOf(".") + 1) === group && (best === undefined || p.group > best)) best = p.group;
  return best ?? crdPriority.group;
}

/** What a CRD's group version is registered with: below every built-in group. */
export const crdPriority: APIServicePriority = { group: 1000, version: 100 };
