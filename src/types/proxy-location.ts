// Where pods/proxy, services/proxy and nodes/proxy send a request (upstream's ResourceLocation of
// each, pkg/registry/core/{pod,service,node}): the id names the object and, optionally, a scheme
// and port ("name", "name:port", "scheme:name:port"); the object gives the address. Pure: the
// objects are given, the caller reads them.
import { badRequest, ApiError } from "../apimachinery/errors.js";
import { isGlobalUnicast, parseIPv4Sloppy, tryParseAddr } from "../apimachinery/ip-address.js";
import type { KObject } from "../apimachinery/object.js";
import { goQuote } from "../apimachinery/go-quote.js";
import { joinHostPort } from "./node-address.js";

export interface ProxyId {
  /** "", "http" or "https" ("" is http). */
  scheme: string;
  name: string;
  port: string;
}

/** Upstream's SplitSchemeNamePort: undefined when the id is not one of its three forms. */
export function splitSchemeNamePort(id: string): ProxyId | undefined {
  const parts = id.split(":");
  let scheme = "";
  let name: string;
  let port = "";
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) [name, port] = [parts[0]!, parts[1]!];
  else if (parts.length === 3) [scheme, name, port] = [parts[0]!, parts[1]!, parts[2]!];
  else return undefined;
  if (name === "" || (scheme !== "" && scheme !== "http" && scheme !== "https")) return undefined;
  return { scheme, name, port };
}

/** The id of a proxy request, or upstream's 400 for one it cannot read. */
export function proxyId(kind: "pod" | "service" | "node", id: string): ProxyId {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw badRequest(`invalid ${kind} request ${goQuote(id)}`);
  return parsed;
}

/** Upstream proxies to global unicast addresses only (no loopback, link-local, multicast). */
export function proxyableIP(ip: string): boolean {
  const addr = parseIPv4Sloppy(ip) ?? tryParseAddr(ip);
  return addr !== undefined && addr.zone === "" && isGlobalUnicast(addr);
}

export const addressNotAllowed = (): ApiError => badRequest("address not allowed");

const schemeOf = (id: ProxyId) => id.scheme || "http";

interface PodShape {
  spec?: { containers?: { ports?: { containerPort?: number }[] }[] };
  status?: { podIPs?: { ip?: string }[] };
}

/** pods/proxy: the pod's first IP, at the id's port or the first port any container declares. */
export function podProxyBase(pod: KObject, id: ProxyId): URL {
  const p = pod as unknown as PodShape;
  let port = id.port;
  if (port === "") {
    const declared = (p.spec?.containers ?? []).find((c) => (c.ports ?? []).length > 0);
    if (declared) port = String(declared.ports![0]!.containerPort ?? "");
  }
  const ip = p.status?.podIPs?.[0]?.ip ?? "";
  if (!proxyableIP(ip)) throw addressNotAllowed();
  return new URL(`${schemeOf(id)}://${port === "" ? (ip.includes(":") ? `[${ip}]` : ip) : joinHostPort(ip, port)}`);
}

interface ServiceShape {
  spec?: { ports?: { name?: string; port?: number }[] };
}
interface EndpointsShape {
  subsets?: { addresses?: EndpointAddress[]; ports?: { name?: string; port?: number }[] }[];
}
export interface EndpointAddress {
  ip?: string;
  targetRef?: { kind?: string; namespace?: string; name?: string };
}

/**
 * services/proxy, first step: a numeric port in the id names the Service port whose name the
 * Endpoints use (503 when the Service has no such port).
 */
export function servicePortName(svc: KObject, id: ProxyId): string {
  if (!/^[+-]?\d+$/.test(id.port)) return id.port;
  const number = Number(id.port);
  const match = ((svc as unknown as ServiceShape).spec?.ports ?? []).find((p) => p.port === number);
  if (!match) throw new ApiError(503, "ServiceUnavailable", `no service port ${number} found for service ${goQuote(id.name)}`);
  return match.name ?? "";
}

/**
 * services/proxy, second step: an address of the Endpoints serving the named port, tried from a
 * random subset and address on as upstream; `valid` says whether an address still belongs to its
 * pod (upstream checks the pod's IPs). 503 when none serves.
 */
export async function serviceProxyBase(endpoints: KObject, id: ProxyId, portName: string, valid: (a: EndpointAddress) => Promise<boolean>): Promise<URL> {
  const subsets = (endpoints as unknown as EndpointsShape).subsets ?? [];
  if (subsets.length === 0) throw new ApiError(503, "ServiceUnavailable", `no endpoints available for service ${goQuote(id.name)}`);
  const seed = Math.floor(Math.random() * subsets.length);
  for (let i = 0; i < subsets.length; i++) {
    const ss = subsets[(seed + i) % subsets.length]!;
    const addresses = ss.addresses ?? [];
    if (addresses.length === 0) continue;
    for (const port of ss.ports ?? []) {
      if ((port.name ?? "") !== portName) continue;
      const addrSeed = Math.floor(Math.random() * addresses.length);
      for (let t = 0; t < addresses.length; t++) {
        const addr = addresses[(addrSeed + t) % addresses.length]!;
        if (!(await valid(addr))) continue;
        return new URL(`${schemeOf(id)}://${joinHostPort(addr.ip ?? "", port.port ?? 0)}`);
      }
    }
  }
  const idText = id.scheme ? `${id.scheme}:${id.name}:${id.port}` : id.port ? `${id.name}:${id.port}` : id.name;
  throw new ApiError(503, "ServiceUnavailable", `no endpoints available for service ${goQuote(idText)}`);
}
