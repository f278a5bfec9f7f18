// The two system PriorityClasses kube-apiserver creates at start when missing (upstream's
// post-start hook scheduling/bootstrap-system-priority-classes), for critical cluster pods.
import type { KObject } from "../../apimachinery/object.js";

export const systemPriorityClasses: readonly KObject[] = [
  {
    apiVersion: "scheduling.k8s.io/v1",
    kind: "PriorityClass",
    metadata: { name: "system-node-critical" },
    value: 2000001000,
    description: "Used for system critical pods that must not be moved from their current node.",
  },
  {
    apiVersion: "scheduling.k8s.io/v1",
    kind: "PriorityClass",
    metadata: { name: "system-cluster-critical" },
    value: 2000000000,
    description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
  },
];
