// The pod subresources that stream from a node's kubelet: log (GET) and the connect verbs exec,
// attach and portforward (GET for WebSocket clients, POST for SPDY ones). Each resolves where
// kube-apiserver connects — the pod, its container, its node's kubelet — and answers as upstream
// when there is nowhere to go: a log of a pod no scheduler has placed is empty (204), the others
// are refused (400). Otherwise the log is read from the kubelet's containerLogs and streamed, and
// a connect verb's upgrade is handed to the kubelet and the two connections joined.
import { ApiError, badRequest, invalid, type StatusReason } from "../apimachinery/errors.js";
import { genericServerResponse } from "../apimachinery/generic-server-response.js";
import { queryBool } from "../apimachinery/booleans.js";
import type { KObject } from "../apimachinery/object.js";
import { openStream, relayBody } from "../http/reverse-proxy.js";
import {
  assignedNode,
  kubeletLogPath,
  kubeletLogQuery,
  kubeletStreamPath,
  kubeletStreamQuery,
  requireAssignedNode,
  targetContainer,
  type StreamOptions,
} from "../types/pod-location.js";
import { parsePodLogOptions, validatePodLogOptions } from "../types/validation/pod-log-options.js";
import { admitConnect, forward, upgradeFailure } from "./connect.js";
import type { ResourceHandler, ResourceRequest } from "./context.js";
import { kubeletConnection, type KubeletClientConfig } from "./kubelet-connection.js";
import type { Connecter, Getter, RestStorage } from "./rest/capabilities.js";

/** The connect verbs of a pod. */
type StreamSubresource = "exec" | "attach" | "portforward";

const optionKinds: Record<StreamSubresource, string> = { exec: "PodExecOptions", attach: "PodAttachOptions", portforward: "PodPortForwardOptions" };

async function podOf(r: ResourceRequest): Promise<KObject> {
  return r.store.get(r.info.namespace, r.info.name, undefined, r.signal);
}

function getLog(kubelet: KubeletClientConfig): ResourceHandler {
  return async (r) => {
    const opts = parsePodLogOptions(r.ex.query);
    const errs = validatePodLogOptions(opts);
    if (errs.length > 0) throw invalid({ group: "", kind: "PodLogOptions" }, r.info.name, errs);
    const pod = await podOf(r);
    const container = targetContainer(pod, opts.container);
    const node = assignedNode(pod);
    if (node === "") {
      // Nowhere to read from yet: upstream streams nothing and says so with 204.
      r.ex.head(204, {});
      r.ex.end();
      return;
    }
    const conn = await kubeletConnection(r, kubelet, node);
    const location = new URL(kubeletLogPath(r.info.namespace, r.info.name, container), conn.base);
    location.search = kubeletLogQuery(opts);
    const tls = opts.insecureSkipTLSVerifyBackend ? { ...conn.tls, ca: undefined, insecureSkipVerify: true } : conn.tls;
    const res = await openStream({ location, tls, signal: r.signal }).catch((e: Error) => {
      // Go's http.Client wraps the failure with the method and URL.
      throw new ApiError(500, "" as StatusReason, `Get ${JSON.stringify(location.href)}: ${e.message}`);
    });
    const code = res.statusCode ?? 500;
    if (code < 200 || code > 299) {
      const body = await readSome(res, 50_000);
      throw genericServerResponse(code, { group: "", resource: "pods/log" }, r.info.name, body);
    }
    r.ex.head(200, { "content-type": "text/plain" });
    await relayBody(r.ex, res);
  };
}

/** Up to `limit` bytes of an error answer's body (upstream's response checker reads as much). */
function readSome(res: NodeJS.ReadableStream & { destroy(): void }, limit: number): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on("data", (c: Buffer) => {
      chunks.push(c);
      size += c.length;
      if (size >= limit) res.destroy();
    });
    const done = () => resolve(Buffer.concat(chunks).subarray(0, limit).toString());
    res.once("end", done);
    res.once("close", done);
    res.once("error", done);
  });
}

/** The options of a connect verb, decoded from the query as the v1 options type is. */
function streamOptions(q: URLSearchParams): StreamOptions {
  const ports = q.getAll("ports").map((p) => {
    const v = p.trim();
    if (!/^[+-]?\d+$/.test(v) || Number(v) < -(2 ** 31) || Number(v) >= 2 ** 31) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
    return Number(v);
  });
  return {
    stdin: queryBool(q, "stdin"),
    stdout: queryBool(q, "stdout"),
    stderr: queryBool(q, "stderr"),
    tty: queryBool(q, "tty"),
    container: q.get("container") ?? "",
    command: q.getAll("command"),
    ports,
  };
}

/** The options object admission sees (the v1 type's JSON: omitted empties, command always there). */
function optionsObject(subresource: StreamSubresource, o: StreamOptions): Record<string, unknown> {
  if (subresource === "portforward") return o.ports.length > 0 ? { ports: o.ports } : {};
  const flags = { ...(o.stdin ? { stdin: true } : {}), ...(o.stdout ? { stdout: true } : {}), ...(o.stderr ? { stderr: true } : {}), ...(o.tty ? { tty: true } : {}) };
  const container = o.container ? { container: o.container } : {};
  return subresource === "exec" ? { ...flags, ...container, command: o.command.length > 0 ? o.command : null } : { ...flags, ...container };
}

function connect(subresource: StreamSubresource, kubelet: KubeletClientConfig): ResourceHandler {
  return async (r) => {
    // Upstream refuses the parameter's presence, whatever its value.
    if (r.ex.query.has("dryRun")) throw badRequest("dryRun is not supported");
    const opts = streamOptions(r.ex.query);
    await admitConnect(r, optionKinds[subresource], optionsObject(subresource, opts));
    const pod = await podOf(r);
    // Port-forwarding reaches the pod's network, not one container.
    const container = subresource === "portforward" ? "" : targetContainer(pod, opts.container);
    const conn = await kubeletConnection(r, kubelet, requireAssignedNode(pod));
    const location = new URL(kubeletStreamPath(subresource, r.info.namespace, r.info.name, container), conn.base);
    location.search = kubeletStreamQuery(subresource, opts);
    // kube-apiserver 1.34 (PortForwardWebsockets) tunnels kubectl's SPDY-over-WebSocket port-forward to the kubelet's SPDY.
    await forward(r, { location, tls: conn.tls, upgradeRequired: true, backendError: upgradeFailure, tunnelSpdyOverWebSocket: subresource === "portforward" });
  };
}

/** pods/log: read only (upstream's LogREST is a Getter that streams). */
export function podLogStorage(kubelet: KubeletClientConfig): Getter & RestStorage {
  return { get: getLog(kubelet), unservedVerb: "NotFound" };
}

/** pods/exec, pods/attach, pods/portforward: connected by GET or POST. */
export function podConnectStorage(subresource: StreamSubresource, kubelet: KubeletClientConfig): Connecter & RestStorage {
  return { connect: connect(subresource, kubelet), connectMethods: ["GET", "POST"], unservedVerb: "RouteMethod" };
}
