// Where a node's kubelet listens, read from the Node as kube-apiserver reads it: the first address
// of the first preferred type (--kubelet-preferred-address-types) among status.addresses, and the
// port the kubelet reported in status.daemonEndpoints.kubeletEndpoint.Port (else --kubelet-port).
// Pure: the node is given.
import type { KObject } from "../apimachinery/object.js";

/** kube-apiserver's --kubelet-preferred-address-types default. */
export const defaultPreferredAddressTypes: readonly string[] = ["Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"];

/** The address types a node may report (the values the flag accepts). */
export const nodeAddressTypes: readonly string[] = ["Hostname", "ExternalIP", "InternalIP", "ExternalDNS", "InternalDNS"];

interface NodeAddress {
  type?: string;
  address?: string;
}

/** Go's %v of a []NodeAddress: [{InternalIP 10.0.0.1} {Hostname n1}]. */
function formatAddresses(addresses: readonly NodeAddress[]): string {
  return `[${addresses.map((a) => `{${a.type ?? ""} ${a.address ?? ""}}`).join(" ")}]`;
}

/** Upstream's NoMatchError: no address of any preferred type. */
export class NoPreferredAddressError extends Error {
  override name = "NoPreferredAddressError";
}

/** The address to reach the node at; throws NoPreferredAddressError with upstream's text when none fits. */
export function preferredNodeAddress(node: KObject, preferred: readonly string[]): string {
  const addresses = (((node.status as { addresses?: NodeAddress[] } | undefined)?.addresses) ?? []) as NodeAddress[];
  for (const type of preferred) {
    const match = addresses.find((a) => a.type === type);
    if (match) return match.address ?? "";
  }
  throw new NoPreferredAddressError(`no preferred addresses found; known addresses: ${formatAddresses(addresses)}`);
}

/** The kubelet's port as the node reports it, else the configured default. */
export function kubeletPort(node: KObject, defaultPort: number): number {
  const port = (node.status as { daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } } | undefined)?.daemonEndpoints?.kubeletEndpoint?.Port;
  return typeof port === "number" && port > 0 ? port : defaultPort;
}

/** host:port for a URL (an IPv6 address in brackets), as Go's net.JoinHostPort. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}
