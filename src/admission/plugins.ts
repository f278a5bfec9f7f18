// The named admission plugins of kube-apiserver 1.34: their order, which are on by default, and
// the factory of each that kapi implements. `--enable-admission-plugins` and
// `--disable-admission-plugins` choose from these names; the chain runs them in this order
// whatever order the flags give (upstream: AllOrderedPlugins, DefaultOffAdmissionPlugins).
import type { Authorizer } from "../authz/authorizer.js";
import type { FeatureGates } from "../apimachinery/feature-gates.js";
import type { InformerFactory } from "../registry/informer-factory.js";
import type { NamespaceStates } from "../registry/namespace-states.js";
import type { Stores } from "../registry/stores.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import type { AdmissionFlags } from "./flags.js";
import type { AdmissionMetrics } from "../observability/admission-metrics.js";
import type { AdmissionPlugin } from "../registry/admission.js";
import { alwaysAdmit, alwaysDeny } from "./builtin/always.js";
import { alwaysPullImages } from "./builtin/always-pull-images.js";
import { defaultIngressClassPlugin } from "./builtin/default-ingress-class.js";
import { denyServiceExternalIPs } from "./builtin/deny-service-external-ips.js";
import { extendedResourceToleration } from "./builtin/extended-resource-toleration.js";
import { limitPodHardAntiAffinityTopology } from "./builtin/limit-pod-hard-anti-affinity-topology.js";
import { namespaceAutoProvision, namespaceExists } from "./builtin/namespace-presence.js";
import { ownerReferencesPermissionEnforcement } from "./builtin/owner-references-permission-enforcement.js";
import { podNodeSelector, podNodeSelectorConfig } from "./builtin/pod-node-selector.js";
import { podTolerationRestriction, tolerationRestrictionConfig } from "./builtin/pod-toleration-restriction.js";
import { defaultStorageClassPlugin } from "./builtin/default-storage-class.js";
import { defaultTolerationSeconds } from "./builtin/default-toleration-seconds.js";
import { limitRanger } from "./builtin/limit-ranger.js";
import { persistentVolumeClaimResize } from "./builtin/persistent-volume-claim-resize.js";
import { podTopologyLabels } from "./builtin/pod-topology-labels.js";
import { priorityPlugin } from "./builtin/priority.js";
import { runtimeClassPlugin } from "./builtin/runtime-class.js";
import { serviceAccountPlugin } from "./builtin/service-account.js";
import { storageObjectInUseProtection } from "./builtin/storage-object-in-use-protection.js";
import { taintNodesByCondition } from "./builtin/taint-nodes-by-condition.js";
import { certificateApproval, certificateSigning, certificateSubjectRestriction, clusterTrustBundleAttest } from "./certificates/index.js";
import { namespaceLifecycle } from "./namespace-lifecycle.js";
import { mutatingWebhookPlugin, validatingWebhookPlugin } from "./webhook/plugin.js";
import { mutatingAdmissionPolicy } from "./policy/mutating/plugin.js";
import { validatingAdmissionPolicy } from "./policy/validating/plugin.js";
import { nodeRestriction, storeLookup } from "./noderestriction/index.js";
import { podSecurityPlugin } from "./podsecurity/index.js";
import { resourceQuota } from "./resourcequota/index.js";

/** Every plugin name kube-apiserver 1.34 registers, in the order the chain runs them. */
export const allOrderedPlugins = [
  "AlwaysAdmit",
  "NamespaceAutoProvision",
  "NamespaceLifecycle",
  "NamespaceExists",
  "LimitPodHardAntiAffinityTopology",
  "LimitRanger",
  "ServiceAccount",
  "NodeRestriction",
  "TaintNodesByCondition",
  "AlwaysPullImages",
  "ImagePolicyWebhook",
  "PodSecurity",
  "PodNodeSelector",
  "Priority",
  "DefaultTolerationSeconds",
  "PodTolerationRestriction",
  "EventRateLimit",
  "ExtendedResourceToleration",
  "DefaultStorageClass",
  "StorageObjectInUseProtection",
  "OwnerReferencesPermissionEnforcement",
  "PersistentVolumeClaimResize",
  "RuntimeClass",
  "CertificateApproval",
  "CertificateSigning",
  "ClusterTrustBundleAttest",
  "CertificateSubjectRestriction",
  "DefaultIngressClass",
  "DenyServiceExternalIPs",
  "PodTopologyLabels",
  // Webhooks, policies, quota and deny run last.
  "MutatingAdmissionPolicy",
  "MutatingAdmissionWebhook",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionWebhook",
  "ResourceQuota",
  "AlwaysDeny",
] as const;

export type AdmissionPluginName = (typeof allOrderedPlugins)[number];

/** The plugins on when the flags say nothing of them. */
export const defaultOnPlugins: ReadonlySet<string> = new Set<AdmissionPluginName>([
  "NamespaceLifecycle",
  "LimitRanger",
  "ServiceAccount",
  "DefaultStorageClass",
  "PersistentVolumeClaimResize",
  "DefaultTolerationSeconds",
  "MutatingAdmissionWebhook",
  "ValidatingAdmissionWebhook",
  "ResourceQuota",
  "StorageObjectInUseProtection",
  "Priority",
  "TaintNodesByCondition",
  "RuntimeClass",
  "CertificateApproval",
  "CertificateSigning",
  "ClusterTrustBundleAttest",
  "CertificateSubjectRestriction",
  "DefaultIngressClass",
  "PodSecurity",
  "PodTopologyLabels",
  "MutatingAdmissionPolicy",
  "ValidatingAdmissionPolicy",
]);

/** The server's parts a plugin may use. Getters: the store is made after the chain it holds. */
export interface AdmissionParts {
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
}

/** What a plugin factory gets. */
export interface AdmissionPluginContext {
  parts(): AdmissionParts;
  /** Namespace states and labels, from the namespace informer with a live read on a miss. */
  namespaces: NamespaceStates;
  /** The server's whole authorizer chain (built after the chain: read on use). */
  authorizer(): Authorizer;
  gates: FeatureGates;
  flags: AdmissionFlags;
  /** The plugin's configuration from --admission-control-config-file, when it has one. */
  configuration(name: AdmissionPluginName): unknown;
  log(msg: string): void;
  /** The server's admission metrics (webhook calls, rejections, fail-opens); absent: not recorded. */
  metrics?: AdmissionMetrics;
}

export type AdmissionPluginFactory = (ctx: AdmissionPluginContext) => AdmissionPlugin;

/** The plugins kapi implements. A name upstream knows but kapi lacks is refused at start. */
const factories: Partial<Record<AdmissionPluginName, AdmissionPluginFactory>> = {
  NamespaceLifecycle: (ctx) => namespaceLifecycle((ns) => ctx.namespaces.get(ns)),
  MutatingAdmissionWebhook: mutatingWebhookPlugin,
  ValidatingAdmissionWebhook: validatingWebhookPlugin,
  MutatingAdmissionPolicy: (ctx) => mutatingAdmissionPolicy(ctx),
  ValidatingAdmissionPolicy: (ctx) => validatingAdmissionPolicy(ctx),
  LimitRanger: (ctx) => limitRanger(ctx.parts),
  ServiceAccount: (ctx) => serviceAccountPlugin(ctx.parts),
  TaintNodesByCondition: () => taintNodesByCondition(),
  Priority: (ctx) => priorityPlugin(ctx.parts),
  DefaultTolerationSeconds: (ctx) => defaultTolerationSeconds(ctx.flags),
  DefaultStorageClass: (ctx) => defaultStorageClassPlugin(ctx.parts),
  StorageObjectInUseProtection: () => storageObjectInUseProtection(),
  PersistentVolumeClaimResize: (ctx) => persistentVolumeClaimResize(ctx.parts),
  RuntimeClass: (ctx) => runtimeClassPlugin(ctx.parts),
  DefaultIngressClass: (ctx) => defaultIngressClassPlugin(ctx.parts),
  PodTopologyLabels: (ctx) => podTopologyLabels(ctx.parts, ctx.gates.enabled("PodTopologyLabelsAdmission")),
  AlwaysAdmit: () => alwaysAdmit(),
  AlwaysDeny: () => alwaysDeny(),
  AlwaysPullImages: () => alwaysPullImages(),
  NamespaceAutoProvision: (ctx) => namespaceAutoProvision(ctx),
  NamespaceExists: (ctx) => namespaceExists(ctx),
  DenyServiceExternalIPs: () => denyServiceExternalIPs(),
  LimitPodHardAntiAffinityTopology: () => limitPodHardAntiAffinityTopology(),
  ExtendedResourceToleration: () => extendedResourceToleration(),
  PodNodeSelector: (ctx) => podNodeSelector(ctx.parts, podNodeSelectorConfig(ctx.configuration("PodNodeSelector"))),
  PodTolerationRestriction: (ctx) => podTolerationRestriction(ctx.parts, tolerationRestrictionConfig(ctx.configuration("PodTolerationRestriction"))),
  OwnerReferencesPermissionEnforcement: (ctx) => ownerReferencesPermissionEnforcement(ctx.authorizer, () => ctx.parts().types),
  NodeRestriction: (ctx) =>
    nodeRestriction(storeLookup(ctx.parts), ctx.authorizer, {
      recoverVolumeExpansionFailure: ctx.gates.enabled("RecoverVolumeExpansionFailure"),
      serviceAccountNodeAudienceRestriction: ctx.gates.enabled("ServiceAccountNodeAudienceRestriction"),
      allowInsecureKubeletCertificateSigningRequests: ctx.gates.enabled("AllowInsecureKubeletCertificateSigningRequests"),
    }),
  CertificateApproval: (ctx) => certificateApproval(ctx.authorizer),
  CertificateSigning: (ctx) => certificateSigning(ctx.authorizer),
  ClusterTrustBundleAttest: (ctx) => clusterTrustBundleAttest(ctx.authorizer, ctx.gates.enabled("ClusterTrustBundle")),
  CertificateSubjectRestriction: () => certificateSubjectRestriction(),
  PodSecurity: podSecurityPlugin,
  ResourceQuota: (ctx) => resourceQuota(ctx),
};

/** The plugin names kapi implements, in chain order (the admission conformance suite runs each). */
export const implementedAdmissionPlugins: readonly AdmissionPluginName[] = allOrderedPlugins.filter((n) => factories[n]);

/** The enabled plugin names in chain order, or the start-up errors of the flags. */
export function enabledAdmissionPlugins(flags: AdmissionFlags): string[] {
  const enable = flags.enableAdmissionPlugins ?? [];
  const disable = flags.disableAdmissionPlugins ?? [];
  const known = new Set<string>(allOrderedPlugins);
  const errors: string[] = [];
  for (const name of enable) if (!known.has(name)) errors.push(`enable-admission-plugins plugin "${name}" is unknown`);
  for (const name of disable) if (!known.has(name)) errors.push(`disable-admission-plugins plugin "${name}" is unknown`);
  const overlap = [...new Set(enable.filter((n) => disable.includes(n)))].sort();
  if (overlap.length > 0) errors.push(`[${overlap.join(" ")}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  if (errors.length > 0) throw new Error(errors.join(", "));
  const on = allOrderedPlugins.filter((n) => (defaultOnPlugins.has(n) || enable.includes(n)) && !disable.includes(n));
  const missing = on.filter((n) => !factories[n] && enable.includes(n));
  if (missing.length > 0) throw new Error(`admission plugins ${missing.map((n) => `"${n}"`).join(", ")} are not implemented by kapi`);
  return on.filter((n) => factories[n]);
}

/** The enabled plugins, made in chain order. */
export function buildAdmissionPlugins(flags: AdmissionFlags, ctx: AdmissionPluginContext): AdmissionPlugin[] {
  return enabledAdmissionPlugins(flags).map((name) => factories[name as AdmissionPluginName]!(ctx));
}
