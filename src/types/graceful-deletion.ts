// Types whose objects are deleted gracefully: DELETE sets deletionTimestamp in the future and
// leaves the object for its owner agent (the kubelet, for pods) to remove. Upstream: the pod
// strategy's CheckGracefulDelete.
import type { GracePeriodPolicy } from "../registry/resource-type.js";

export type { GracePeriodPolicy };

const defaultPodGracePeriod = 30;

const podGracePeriod: GracePeriodPolicy = (pod, requested) => {
  const spec = (pod.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  // A pod no kubelet runs (unscheduled) or that already finished has nothing to wait for.
  if (!spec.nodeName || phase === "Failed" || phase === "Succeeded") return 0;
  let grace = requested ?? spec.terminationGracePeriodSeconds ?? defaultPodGracePeriod;
  if (grace < 0) grace = 1; // upstream turns a negative request into the minimum
  return grace;
};

const policies: Record<string, GracePeriodPolicy> = { pods: podGracePeriod };

export function gracePeriodPolicyFor(group: string, resource: string): GracePeriodPolicy | undefined {
  return policies[group ? `${resource}.${group}` : resource];
}
