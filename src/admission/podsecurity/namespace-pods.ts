// The warnings of a tightened namespace enforce level (upstream: EvaluatePodsInNamespace): the
// existing pods that would now be refused, grouped by their violations, each group named by its
// lexically first pod and a count of the others. At most a given number of pods are checked,
// within a deadline; a cut-off is said.
import type { KObject } from "../../apimachinery/object.js";
import { lvString, type LevelVersion } from "./api.js";
import type { PodJson } from "./pod-updates.js";
import { forbiddenReason, type AggregateResult } from "./registry.js";

export interface ExistingPodCheck {
  evaluate(pod: PodJson): AggregateResult;
  exemptRuntimeClass(rc: string | undefined): boolean;
  maxPods: number;
  /** True once the time for checking is up. */
  expired(): boolean;
}

export function existingPodWarnings(namespace: string, enforce: LevelVersion, pods: readonly KObject[], c: ExistingPodCheck): string[] {
  const prioritized = prioritizePods(pods, c.exemptRuntimeClass);
  const total = prioritized.length;
  const toCheck = prioritized.slice(0, c.maxPods);
  let checked = toCheck.length;
  const counts = new Map<string, { podName: string; count: number }>();
  const order: string[] = [];
  for (let i = 0; i < toCheck.length; i++) {
    const pod = toCheck[i] as PodJson;
    const r = c.evaluate(pod);
    if (!r.allowed) {
      const warning = forbiddenReason(r);
      const name = pod.metadata.name ?? "";
      const seen = counts.get(warning);
      if (!seen) {
        counts.set(warning, { podName: name, count: 1 });
        order.push(warning);
      } else {
        seen.count++;
        if (name < seen.podName) seen.podName = name;
      }
    }
    if (c.expired()) {
      checked = i + 1;
      break;
    }
  }
  const warnings: string[] = [];
  if (checked < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`);
  if (order.length > 0) warnings.push(`existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${lvString(enforce)}"`);
  const decorated = order.map((w) => {
    const { podName, count } = counts.get(w)!;
    if (count === 1) return `${podName}: ${w}`;
    if (count === 2) return `${podName} (and 1 other pod): ${w}`;
    return `${podName} (and ${count - 1} other pods): ${w}`;
  });
  decorated.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  return [...warnings, ...decorated];
}

/**
 * Pods to check for a new enforce level: those of an exempt runtime class left out, one pod per
 * controller first and the other replicas after, so that a cut-off still covers every workload.
 */
export function prioritizePods(pods: readonly KObject[], exemptRuntimeClass: (rc: string | undefined) => boolean): KObject[] {
  const first: KObject[] = [];
  const replicas: KObject[] = [];
  const seen = new Set<string>();
  for (const pod of pods) {
    if (exemptRuntimeClass((pod as PodJson).spec?.runtimeClassName)) continue;
    const controller = pod.metadata.ownerReferences?.find((o) => o.controller);
    if (!controller) first.push(pod);
    else if (seen.has(controller.uid)) replicas.push(pod);
    else {
      seen.add(controller.uid);
      first.push(pod);
    }
  }
  return [...first, ...replicas];
}
