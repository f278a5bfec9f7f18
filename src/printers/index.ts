// Server-side Table printers for built-in resources, keyed by API group and resource.
import { apiServicePrinter } from "./apiregistration.js";
import { daemonSetPrinter, deploymentPrinter, replicaSetPrinter, statefulSetPrinter } from "./apps.js";
import { horizontalPodAutoscalerPrinter } from "./autoscaling.js";
import { cronJobPrinter, jobPrinter } from "./batch.js";
import { certificateSigningRequestPrinter } from "./certificates.js";
import { leasePrinter } from "./coordination.js";
import {
  configMapPrinter,
  endpointsPrinter,
  eventPrinter,
  namespacePrinter,
  nodePrinter,
  persistentVolumeClaimPrinter,
  persistentVolumePrinter,
  podPrinter,
  replicationControllerPrinter,
  resourceQuotaPrinter,
  secretPrinter,
  serviceAccountPrinter,
  servicePrinter,
} from "./core.js";
import { endpointSlicePrinter } from "./discovery.js";
import { eventsV1Printer } from "./events.js";
import { ingressClassPrinter, ingressPrinter, networkPolicyPrinter } from "./networking.js";
import { podDisruptionBudgetPrinter } from "./policy.js";
import { clusterRoleBindingPrinter, roleBindingPrinter } from "./rbac.js";
import { priorityClassPrinter } from "./scheduling.js";
import { storageClassPrinter } from "./storage.js";
import { defaultTablePrinter } from "../registry/table-printer.js";
import type { Printer } from "./types.js";

export type { Printer, TableColumnDefinition } from "./types.js";
export { humanDuration, shortHumanDuration } from "./duration.js";

/** What kube-apiserver uses for resources without a dedicated printer: name and creation time. */
export const defaultPrinter: Printer = defaultTablePrinter;

const printers = new Map<string, Printer>([
  // core
  ["/pods", podPrinter],
  ["/replicationcontrollers", replicationControllerPrinter],
  ["/services", servicePrinter],
  ["/endpoints", endpointsPrinter],
  ["/nodes", nodePrinter],
  ["/namespaces", namespacePrinter],
  ["/configmaps", configMapPrinter],
  ["/secrets", secretPrinter],
  ["/serviceaccounts", serviceAccountPrinter],
  ["/events", eventPrinter],
  ["/persistentvolumes", persistentVolumePrinter],
  ["/persistentvolumeclaims", persistentVolumeClaimPrinter],
  ["/resourcequotas", resourceQuotaPrinter],
  ["/limitranges", defaultPrinter],
  // apps
  ["apps/deployments", deploymentPrinter],
  ["apps/replicasets", replicaSetPrinter],
  ["apps/statefulsets", statefulSetPrinter],
  ["apps/daemonsets", daemonSetPrinter],
  // batch
  ["batch/jobs", jobPrinter],
  ["batch/cronjobs", cronJobPrinter],
  // events
  ["events.k8s.io/events", eventsV1Printer],
  // networking
  ["networking.k8s.io/ingresses", ingressPrinter],
  ["networking.k8s.io/ingressclasses", ingressClassPrinter],
  ["networking.k8s.io/networkpolicies", networkPolicyPrinter],
  ["discovery.k8s.io/endpointslices", endpointSlicePrinter],
  // storage
  ["storage.k8s.io/storageclasses", storageClassPrinter],
  // rbac
  ["rbac.authorization.k8s.io/roles", defaultPrinter],
  ["rbac.authorization.k8s.io/clusterroles", defaultPrinter],
  ["rbac.authorization.k8s.io/rolebindings", roleBindingPrinter],
  ["rbac.authorization.k8s.io/clusterrolebindings", clusterRoleBindingPrinter],
  // others
  ["coordination.k8s.io/leases", leasePrinter],
  ["scheduling.k8s.io/priorityclasses", priorityClassPrinter],
  ["autoscaling/horizontalpodautoscalers", horizontalPodAutoscalerPrinter],
  ["policy/poddisruptionbudgets", podDisruptionBudgetPrinter],
  ["certificates.k8s.io/certificatesigningrequests", certificateSigningRequestPrinter],
  ["apiextensions.k8s.io/customresourcedefinitions", defaultPrinter],
  ["apiregistration.k8s.io/apiservices", apiServicePrinter],
]);

/**
 * The printer kube-apiserver 1.34 uses for a built-in resource, or undefined when
 * the resource is not known here (callers then fall back to defaultPrinter).
 */
export function printerFor(group: string, resource: string): Printer | undefined {
  return printers.get(`${group}/${resource}`);
}
