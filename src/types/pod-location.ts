// Where a pod's log, exec, attach and port-forward requests would be sent: which container, and
// which node's kubelet. Pure: the pod is given; kube-apiserver's answers when either is missing.
import { badRequest } from "../apimachinery/errors.js";
import type { KObject } from "../apimachinery/object.js";

interface PodSpec {
  nodeName?: string;
  initContainers?: { name: string }[];
  containers?: { name: string }[];
  ephemeralContainers?: { name: string }[];
}

const specOf = (pod: KObject) => (pod.spec ?? {}) as PodSpec;

/** Every container name of the pod: init, regular, then ephemeral (the order upstream lists them). */
function allContainerNames(spec: PodSpec): string[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])].map((c) => c.name);
}

/**
 * The container a request names, or the pod's only regular container when it names none. A name
 * the pod does not have, or no name with a choice to make, is a 400 worded as upstream's.
 */
export function targetContainer(pod: KObject, requested: string): string {
  const spec = specOf(pod);
  const name = pod.metadata.name ?? "";
  const all = allContainerNames(spec);
  if (requested !== "") {
    if (!all.includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
    return requested;
  }
  const regular = spec.containers ?? [];
  if (regular.length === 1) return regular[0]!.name;
  if (regular.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
  // Go prints a []string as [a b c].
  throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${all.join(" ")}]`);
}

/** The node the pod is bound to; "" while no scheduler has placed it. */
export function assignedNode(pod: KObject): string {
  return specOf(pod).nodeName ?? "";
}

/** exec, attach and port-forward need a node to stream from: an unplaced pod is a 400. */
export function requireAssignedNode(pod: KObject): string {
  const node = assignedNode(pod);
  if (node === "") throw badRequest(`pod ${pod.metadata.name ?? ""} does not have a host assigned`);
  return node;
}
