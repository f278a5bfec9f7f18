// The client's addresses as upstream's utilnet.SourceIPs lists them for the audit log: each valid
// address of X-Forwarded-For, then X-Real-Ip unless already listed, then the peer's own address
// unless it is the last one listed. Addresses are written as Go's net.IP prints them (an IPv4
// address carried in IPv6 as the IPv4 one).
import { formatAddr, is4In6, parseIPv4Sloppy, tryParseAddr, type Addr } from "../apimachinery/ip-address.js";
import { header, type Exchange } from "./exchange.js";

export function sourceIPs(ex: Exchange): string[] {
  const out: string[] = [];
  const forwarded = header(ex.headers, "x-forwarded-for");
  if (forwarded) {
    for (const part of forwarded.split(",")) {
      const ip = sloppyIP(part.trim());
      if (ip) out.push(ip);
    }
  }
  const real = header(ex.headers, "x-real-ip");
  if (real) {
    const ip = sloppyIP(real);
    if (ip && !out.includes(ip)) out.push(ip);
  }
  const remote = peerAddress(ex);
  if (remote && out[out.length - 1] !== remote) out.push(remote);
  return out;
}

/** The peer's address as printed, once per connection (HTTP/2 carries many requests on one). */
const peerAddresses = new WeakMap<object, string | undefined>();
function peerAddress(ex: Exchange): string | undefined {
  const socket = ex.socket;
  if (!socket) return undefined;
  if (peerAddresses.has(socket)) return peerAddresses.get(socket);
  const ip = sloppyIP(socket.remoteAddress ?? "");
  // An address is known once connected; a socket without one yet is not remembered.
  if (socket.remoteAddress) peerAddresses.set(socket, ip);
  return ip;
}

/** k8s.io/utils/net's ParseIPSloppy, printed as net.IP.String() does; undefined when not an address. */
function sloppyIP(s: string): string | undefined {
  const v4 = parseIPv4Sloppy(s);
  if (v4) return formatAddr(v4);
  if (!s.includes(":")) return undefined;
  const a: Addr | undefined = tryParseAddr(s);
  if (!a || a.zone !== "") return undefined;
  return is4In6(a) ? `${a.bytes[12]}.${a.bytes[13]}.${a.bytes[14]}.${a.bytes[15]}` : formatAddr(a);
}
