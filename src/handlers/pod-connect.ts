// The pod subresources that stream from a node's kubelet: log (GET) and the connect verbs exec,
// attach and portforward (GET or POST). Each resolves where kube-apiserver would connect — the
// pod, its container, its node — and answers as upstream when there is nowhere to go: a log of a
// pod no scheduler has placed is empty (204), the others are refused (400). kapi does not proxy
// to kubelets yet, so a placed pod on a known node ends at the dial, as an unreachable kubelet
// does upstream.
import { ApiError, badRequest, invalid, type StatusReason } from "../apimachinery/errors.js";
import type { KObject } from "../apimachinery/object.js";
import { assignedNode, requireAssignedNode, targetContainer } from "../types/pod-location.js";
import { parsePodLogOptions, validatePodLogOptions } from "../types/validation/pod-log-options.js";
import type { ResourceHandler, ResourceRequest } from "./context.js";
import { goQuote } from "../apimachinery/go-quote.js";
import type { Connecter, Getter, RestStorage } from "./rest/capabilities.js";

/** The connect verbs of a pod. */
type StreamSubresource = "exec" | "attach" | "portforward";

/** The node's kubelet is where every streaming request ends; without a proxy there is no dial. */
async function dialKubelet(r: ResourceRequest, node: string): Promise<never> {
  const nodes = r.parts.types.get("", "v1", "nodes");
  // Upstream looks the node up for its kubelet's address first: an unknown node is a 404.
  if (nodes) await r.parts.stores.for(nodes).get("", node, undefined, r.signal);
  // An unreachable kubelet is a plain (reasonless) 500 upstream.
  throw new ApiError(500, "" as StatusReason, `error dialing backend: kapi does not connect to kubelets (node ${goQuote(node)})`);
}

async function podOf(r: ResourceRequest): Promise<KObject> {
  return r.store.get(r.info.namespace, r.info.name, undefined, r.signal);
}

const getLog: ResourceHandler = async (r) => {
  const opts = parsePodLogOptions(r.ex.query);
  const errs = validatePodLogOptions(opts);
  if (errs.length > 0) throw invalid({ group: "", kind: "PodLogOptions" }, r.info.name, errs);
  const pod = await podOf(r);
  targetContainer(pod, opts.container);
  const node = assignedNode(pod);
  if (node === "") {
    // Nowhere to read from yet: upstream streams nothing and says so with 204.
    r.ex.head(204, {});
    r.ex.end();
    return;
  }
  await dialKubelet(r, node);
};

function connect(subresource: StreamSubresource): ResourceHandler {
  return async (r) => {
    // Upstream refuses the parameter's presence, whatever its value.
    if (r.ex.query.has("dryRun")) throw badRequest("dryRun is not supported");
    const pod = await podOf(r);
    // Port-forwarding reaches the pod's network, not one container.
    if (subresource !== "portforward") targetContainer(pod, r.ex.query.get("container") ?? "");
    await dialKubelet(r, requireAssignedNode(pod));
  };
}

/** pods/log: read only (upstream's LogREST is a Getter that streams). */
export const podLogStorage: Getter & RestStorage = { get: getLog, unservedVerb: "NotFound" };

/** pods/exec, pods/attach, pods/portforward: connected by GET or POST. */
export function podConnectStorage(subresource: StreamSubresource): Connecter & RestStorage {
  return { connect: connect(subresource), connectVerbs: ["get", "create"], unservedVerb: "NotFound" };
}
