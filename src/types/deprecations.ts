// Which built-in API versions kube-apiserver 1.34 treats as deprecated, and what it tells their
// clients (upstream: the APILifecycleDeprecated/Removed/Replacement functions of k8s.io/api's
// types, read by apiserver/pkg/endpoints/deprecation). Facts: the release each kind's version is
// (or will be) deprecated in, the release it stops being served in, and its replacement. Only
// the served versions that carry a deprecation release are listed; a kind whose release is
// later than the current one is not deprecated yet.
import type { Deprecation } from "../registry/resource-type.js";

interface Lifecycle {
  deprecated: [number, number];
  removed?: [number, number];
  replacement?: [string, string, string];
}

/** "<group>/<version> <Kind>" (core: "v1 <Kind>"). */
const lifecycles: Record<string, Lifecycle> = {
  "v1 ComponentStatus": { deprecated: [1, 19] },
  "v1 Endpoints": { deprecated: [1, 33], replacement: ["discovery.k8s.io", "v1", "EndpointSlice"] },
  "admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicy": { deprecated: [1, 37], removed: [1, 40] },
  "admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicyBinding": { deprecated: [1, 37], removed: [1, 40] },
  "admissionregistration.k8s.io/v1alpha1 MutatingAdmissionPolicy": { deprecated: [1, 35], removed: [1, 38] },
  "admissionregistration.k8s.io/v1alpha1 MutatingAdmissionPolicyBinding": { deprecated: [1, 35], removed: [1, 38] },
  "certificates.k8s.io/v1beta1 ClusterTrustBundle": { deprecated: [1, 36], removed: [1, 39] },
  "certificates.k8s.io/v1alpha1 ClusterTrustBundle": { deprecated: [1, 34], removed: [1, 37] },
  "certificates.k8s.io/v1alpha1 PodCertificateRequest": { deprecated: [1, 37], removed: [1, 40] },
  "coordination.k8s.io/v1beta1 LeaseCandidate": { deprecated: [1, 36], removed: [1, 39] },
  "coordination.k8s.io/v1alpha2 LeaseCandidate": { deprecated: [1, 35], removed: [1, 38] },
  "networking.k8s.io/v1beta1 IPAddress": { deprecated: [1, 34], removed: [1, 37] },
  "networking.k8s.io/v1beta1 ServiceCIDR": { deprecated: [1, 34], removed: [1, 37] },
  "resource.k8s.io/v1beta2 DeviceClass": { deprecated: [1, 36], removed: [1, 39] },
  "resource.k8s.io/v1beta2 ResourceClaim": { deprecated: [1, 36], removed: [1, 39] },
  "resource.k8s.io/v1beta2 ResourceClaimTemplate": { deprecated: [1, 36], removed: [1, 39] },
  "resource.k8s.io/v1beta2 ResourceSlice": { deprecated: [1, 36], removed: [1, 39] },
  "resource.k8s.io/v1beta1 DeviceClass": { deprecated: [1, 35], removed: [1, 38] },
  "resource.k8s.io/v1beta1 ResourceClaim": { deprecated: [1, 35], removed: [1, 38] },
  "resource.k8s.io/v1beta1 ResourceClaimTemplate": { deprecated: [1, 35], removed: [1, 38] },
  "resource.k8s.io/v1beta1 ResourceSlice": { deprecated: [1, 35], removed: [1, 38] },
  "resource.k8s.io/v1alpha3 DeviceTaintRule": { deprecated: [1, 36], removed: [1, 39] },
  "storage.k8s.io/v1beta1 VolumeAttributesClass": { deprecated: [1, 34], removed: [1, 37], replacement: ["storage.k8s.io", "v1", "VolumeAttributesClass"] },
  "storage.k8s.io/v1alpha1 VolumeAttributesClass": { deprecated: [1, 32], removed: [1, 35], replacement: ["storage.k8s.io", "v1", "VolumeAttributesClass"] },
  "storagemigration.k8s.io/v1alpha1 StorageVersionMigration": { deprecated: [1, 33], removed: [1, 36] },
};

/** The release kapi serves the API of. */
export const currentRelease: readonly [number, number] = [1, 34];

const gv = (group: string, version: string) => (group ? `${group}/${version}` : version);

/**
 * The deprecation of a built-in kind in one version, as of `current` (upstream's IsDeprecated,
 * RemovedRelease and WarningMessage); undefined when it is not deprecated.
 */
export function builtinDeprecation(group: string, version: string, kind: string, current: readonly [number, number] = currentRelease): Deprecation | undefined {
  const l = lifecycles[`${gv(group, version)} ${kind}`];
  if (!l) return undefined;
  const [major, minor] = l.deprecated;
  if (major > current[0] || (major === current[0] && minor > current[1])) return undefined;
  let warning = `${gv(group, version)} ${kind} is deprecated in v${major}.${minor}+`;
  const removedRelease = l.removed ? `${l.removed[0]}.${l.removed[1]}` : "";
  if (l.removed) warning += `, unavailable in v${removedRelease}+`;
  if (l.replacement) warning += `; use ${gv(l.replacement[0], l.replacement[1])} ${l.replacement[2]}`;
  return { warning, removedRelease };
}
