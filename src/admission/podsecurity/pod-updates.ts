// Which pod updates PodSecurity evaluates again (upstream: isSignificantPodUpdate). Pod
// validation lets an update change little of a pod; of that, PodSecurity looks only at what could
// bring a violation: containers added or removed, images, per-container seccomp annotations, and
// ephemeral containers added or changed. Everything else passes unevaluated, so that pods created
// before their namespace's policy tightened stay updatable (labels, annotations, tolerations).
import type { KObject } from "../../apimachinery/object.js";
import type { PodSpecJson } from "./check.js";

export type PodJson = KObject & { spec?: PodSpecJson };

/**
 * Whether a pod update changes anything the checks read that an update may change: containers
 * added or removed, an image, a container's seccomp annotation, an ephemeral container added or
 * changed. Other updates (labels, status-like fields) pass without evaluation, so that existing
 * pods stay updatable after their namespace's policy tightened.
 */
export function isSignificantPodUpdate(pod: PodJson, oldPod: PodJson): boolean {
  const spec = pod.spec ?? {};
  const oldSpec = oldPod.spec ?? {};
  const annotations = pod.metadata.annotations ?? {};
  const oldAnnotations = oldPod.metadata.annotations ?? {};
  const containers = spec.containers ?? [];
  const oldContainers = oldSpec.containers ?? [];
  const inits = spec.initContainers ?? [];
  const oldInits = oldSpec.initContainers ?? [];
  if (containers.length !== oldContainers.length || inits.length !== oldInits.length) return true;
  const changed = (c: { name: string; image?: string }, o: { name: string; image?: string }) => {
    if (c.image !== o.image) return true;
    const key = `container.seccomp.security.alpha.kubernetes.io/${c.name}`;
    return annotations[key] !== oldAnnotations[key];
  };
  if (containers.some((c, i) => changed(c, oldContainers[i]!))) return true;
  if (inits.some((c, i) => changed(c, oldInits[i]!))) return true;
  for (const c of spec.ephemeralContainers ?? []) {
    const o = (oldSpec.ephemeralContainers ?? []).find((x) => x.name === c.name);
    if (!o || changed(c, o)) return true;
  }
  return false;
}

