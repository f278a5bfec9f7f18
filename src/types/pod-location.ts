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

/** A connect verb's options as the query gives them (upstream's PodExecOptions, PodAttachOptions, PodPortForwardOptions). */
export interface StreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
  container: string;
  command: string[];
  ports: number[];
}

/** The kubelet's query for a connect verb (upstream's streamParams), keys sorted as Go's url.Values.Encode sorts them. */
export function kubeletStreamQuery(subresource: "exec" | "attach" | "portforward", o: StreamOptions): string {
  const q = new URLSearchParams();
  if (subresource === "portforward") {
    if (o.ports.length > 0) q.append("port", o.ports.join(","));
    return q.toString();
  }
  if (subresource === "exec") for (const c of o.command) q.append("command", c);
  if (o.stderr) q.append("error", "1");
  if (o.stdin) q.append("input", "1");
  if (o.stdout) q.append("output", "1");
  if (o.tty) q.append("tty", "1");
  return q.toString();
}

/** The kubelet's path for a connect verb: /exec|/attach/{ns}/{pod}/{container}, /portForward/{ns}/{pod}. */
export function kubeletStreamPath(subresource: "exec" | "attach" | "portforward", namespace: string, pod: string, container: string): string {
  const seg = encodeURIComponent;
  if (subresource === "portforward") return `/portForward/${seg(namespace)}/${seg(pod)}`;
  return `/${subresource}/${seg(namespace)}/${seg(pod)}/${seg(container)}`;
}

/** The kubelet's path for a container's log. */
export function kubeletLogPath(namespace: string, pod: string, container: string): string {
  return `/containerLogs/${encodeURIComponent(namespace)}/${encodeURIComponent(pod)}/${encodeURIComponent(container)}`;
}

/** The kubelet's containerLogs query (upstream's LogLocation), keys sorted as Go's url.Values.Encode sorts them. */
export function kubeletLogQuery(o: { follow: boolean; previous: boolean; timestamps: boolean; sinceSeconds?: number; sinceTime?: string; tailLines?: number; limitBytes?: number }): string {
  const q = new URLSearchParams();
  if (o.follow) q.append("follow", "true");
  if (o.limitBytes !== undefined) q.append("limitBytes", String(o.limitBytes));
  if (o.previous) q.append("previous", "true");
  if (o.sinceSeconds !== undefined) q.append("sinceSeconds", String(o.sinceSeconds));
  // metav1.Time is sent back at whole seconds in UTC (time.RFC3339).
  if (o.sinceTime !== undefined) q.append("sinceTime", new Date(o.sinceTime).toISOString().replace(/\.\d+Z$/, "Z"));
  if (o.tailLines !== undefined) q.append("tailLines", String(o.tailLines));
  if (o.timestamps) q.append("timestamps", "true");
  return q.toString();
}
