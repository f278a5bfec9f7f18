// How kapi reaches a node's kubelet (upstream's NodeConnectionInfoGetter): over TLS to the node's
// preferred address and the port the kubelet reported, with --kubelet-client-certificate/-key, the
// kubelet's certificate checked against --kubelet-certificate-authority, or not checked at all
// when no CA is given (kube-apiserver's default).
import { ApiError, type StatusReason } from "../apimachinery/errors.js";
import type { BackendTls } from "../http/reverse-proxy.js";
import { joinHostPort, kubeletPort, NoPreferredAddressError, preferredNodeAddress } from "../types/node-address.js";
import type { ResourceRequest } from "./context.js";

export interface KubeletClientConfig {
  /** --kubelet-preferred-address-types. */
  preferredAddressTypes: readonly string[];
  /** The port when a node reports none (kube-apiserver's 10250). */
  defaultPort: number;
  /** Client certificate and key, CA (absent: the kubelet's certificate is not verified). */
  tls: BackendTls;
}

/** Where a node's kubelet is: https://host:port, and the TLS to reach it with. */
export interface KubeletConnection {
  hostname: string;
  port: number;
  base: URL;
  tls: BackendTls;
}

export async function kubeletConnection(r: ResourceRequest, config: KubeletClientConfig, nodeName: string): Promise<KubeletConnection> {
  const nodes = r.parts.types.get("", "v1", "nodes");
  if (!nodes) throw new ApiError(500, "" as StatusReason, `nodes are not served: cannot find node ${nodeName}`);
  // An unknown node is the nodes store's own 404.
  const node = await r.parts.stores.for(nodes).get("", nodeName, undefined, r.signal);
  let hostname: string;
  try {
    hostname = preferredNodeAddress(node, config.preferredAddressTypes);
  } catch (e) {
    // A plain error upstream: a reasonless 500 with its text.
    if (e instanceof NoPreferredAddressError) throw new ApiError(500, "" as StatusReason, e.message);
    throw e;
  }
  const port = kubeletPort(node, config.defaultPort);
  return { hostname, port, base: new URL(`https://${joinHostPort(hostname, port)}`), tls: config.tls };
}
