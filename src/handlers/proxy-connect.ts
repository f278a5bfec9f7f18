// pods/proxy, services/proxy and nodes/proxy (and their /proxy/{path} forms), for every HTTP verb:
// the request goes to the address the object names (the pod's IP, an endpoint of the Service, the
// node's kubelet or another port of the node) with upstream's URL handling — the subpath joined
// and cleaned, a bare root redirected to its slash, X-Forwarded-Uri and Location carrying the
// prefix back through kube-apiserver, the backend's CORS headers dropped. Loopback and link-local
// addresses are refused ("address not allowed") as upstream refuses them for pods and nodes.
import { isIP } from "node:net";
import { badRequest, ApiError } from "../apimachinery/errors.js";
import type { KObject } from "../apimachinery/object.js";
import type { BackendTls } from "../http/reverse-proxy.js";
import { forwardedUri, proxySubpath, proxyTarget, rewriteBackendUrl, rewriteHtml } from "../http/proxy-url.js";
import { header } from "../http/exchange.js";
import { joinHostPort } from "../types/node-address.js";
import { addressNotAllowed, podProxyBase, proxyableIP, proxyId, serviceProxyBase, servicePortName, type EndpointAddress, type ProxyId } from "../types/proxy-location.js";
import { admitConnect, forward, upgradeFailure } from "./connect.js";
import type { ResourceHandler, ResourceRequest } from "./context.js";
import { kubeletConnection, type KubeletClientConfig } from "./kubelet-connection.js";
import type { Connecter, RestStorage } from "./rest/capabilities.js";

/** Where a proxy request goes: scheme, host and port, and the TLS to use for https. */
interface Backend {
  base: URL;
  tls: BackendTls;
}

/** Upstream's proxy transport to pods, services and nodes' other ports: https is not verified. */
const proxyTransportTls: BackendTls = { insecureSkipVerify: true };

const corsHeaders = ["access-control-allow-credentials", "access-control-allow-headers", "access-control-allow-methods", "access-control-allow-origin"];

/** The HTTP methods the proxy subresources connect (upstream's proxyMethods). */
const proxyMethods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

function get(r: ResourceRequest, resource: string, name: string): Promise<KObject> {
  const t = r.parts.types.get("", "v1", resource);
  if (!t) throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
  return r.parts.stores.for(t).get(resource === "nodes" ? "" : r.info.namespace, name, undefined, r.signal);
}

async function podBackend(r: ResourceRequest, id: ProxyId): Promise<Backend> {
  return { base: podProxyBase(await get(r, "pods", id.name), id), tls: proxyTransportTls };
}

async function serviceBackend(r: ResourceRequest, id: ProxyId): Promise<Backend> {
  // Only a numeric port needs the Service (to find the port's name the Endpoints use).
  const portName = /^[+-]?\d+$/.test(id.port) ? servicePortName(await get(r, "services", id.name), id) : id.port;
  const endpoints = await get(r, "endpoints", id.name);
  // An address counts while it still belongs to the pod it names (upstream's isValidAddress).
  const valid = async (a: EndpointAddress): Promise<boolean> => {
    const ref = a.targetRef;
    if (!ref || ref.namespace !== r.info.namespace || !ref.name) return false;
    const pod = await get(r, "pods", ref.name).catch(() => undefined);
    const ips = ((pod?.status as { podIPs?: { ip?: string }[] } | undefined)?.podIPs ?? []).map((p) => p.ip);
    return ips.includes(a.ip);
  };
  return { base: await serviceProxyBase(endpoints, id, portName, valid), tls: proxyTransportTls };
}

function nodeBackend(kubelet: KubeletClientConfig) {
  return async (r: ResourceRequest, id: ProxyId): Promise<Backend> => {
    const conn = await kubeletConnection(r, kubelet, id.name);
    await requireProxyableHost(conn.hostname);
    // The kubelet's own port goes with the kubelet's TLS; another port of the node with the proxy's.
    if (id.port === "" || id.port === String(conn.port)) return { base: conn.base, tls: conn.tls };
    return { base: new URL(`${id.scheme || "http"}://${joinHostPort(conn.hostname, id.port)}`), tls: proxyTransportTls };
  };
}

/** Every address the node's host name resolves to must be one upstream proxies to. */
async function requireProxyableHost(hostname: string): Promise<void> {
  const addresses = isIP(hostname) ? [hostname] : await resolve(hostname);
  if (addresses.length === 0) throw badRequest("no addresses for hostname");
  if (!addresses.every(proxyableIP)) throw addressNotAllowed();
}

async function resolve(hostname: string): Promise<string[]> {
  try {
    // node:dns and node:zlib are loaded when a proxy first needs them, not at every start.
    return (await process.getBuiltinModule("node:dns/promises").lookup(hostname, { all: true })).map((a) => a.address);
  } catch {
    throw badRequest(`lookup ${hostname}: no such host`);
  }
}

const optionKinds = { pods: "PodProxyOptions", services: "ServiceProxyOptions", nodes: "NodeProxyOptions" } as const;
type Proxied = keyof typeof optionKinds;
const idKinds = { pods: "pod", services: "service", nodes: "node" } as const;

function proxy(resource: Proxied, backendOf: (r: ResourceRequest, id: ProxyId) => Promise<Backend>): ResourceHandler {
  return async (r) => {
    const ex = r.ex;
    // After /{resource}/{name}/proxy comes the subpath (the path option).
    const subpath = proxySubpath(r.info.parts.slice(3), ex.path);
    await admitConnect(r, optionKinds[resource], subpath ? { path: subpath } : {});
    const id = proxyId(idKinds[resource], r.info.name);
    const backend = await backendOf(r, id);
    const rawQuery = ex.url && ex.url.includes("?") ? ex.url.slice(ex.url.indexOf("?") + 1) : "";
    const target = proxyTarget(ex.method, ex.path, rawQuery, subpath);
    if (target.redirect !== undefined) {
      ex.head(301, { location: target.redirect });
      ex.end();
      return;
    }
    const location = new URL(backend.base);
    location.pathname = target.path!;
    location.search = rawQuery;
    const clientHost = header(ex.headers, "host") ?? header(ex.headers, ":authority") ?? "";
    await forward(r, {
      location,
      tls: backend.tls,
      // Upstream's proxy transport sets it on plain requests; an upgrade is dialled directly.
      add: ex.upgrade ? [] : [["X-Forwarded-Uri", forwardedUri(target.prefix, location.pathname)]],
      backendError: (e) => (r.ex.upgrade ? upgradeFailure(e) : new ApiError(503, "ServiceUnavailable", `error trying to reach service: ${e.message}`)),
      rewriteResponseHeaders(h) {
        for (const name of corsHeaders) delete h[name];
        const redirect = h["location"];
        if (typeof redirect === "string") h["location"] = rewriteBackendUrl(redirect, location.host, clientHost, target.prefix);
      },
      // An HTML page's own links are sent back through the proxy too (a redirect's is enough).
      rewriteBody: (h) => (h["location"] === undefined ? htmlRewriter(h, (u) => rewriteBackendUrl(u, location.host, clientHost, target.prefix)) : undefined),
    });
  };
}

/** How an HTML answer's links are rewritten: in its encoding, when kapi (as upstream) can read it. */
function htmlRewriter(h: Record<string, string | string[]>, url: (u: string) => string): ((body: Buffer) => Buffer) | undefined {
  const type = String(h["content-type"] ?? "").split(";")[0]!.trim();
  if (type !== "text/html") return undefined;
  const encoding = String(h["content-encoding"] ?? "");
  const zlib = () => process.getBuiltinModule("node:zlib");
  const codec =
    encoding === ""
      ? { decode: (b: Buffer) => b, encode: (b: Buffer) => b }
      : encoding === "gzip"
        ? { decode: (b: Buffer) => zlib().gunzipSync(b), encode: (b: Buffer) => zlib().gzipSync(b) }
        : encoding === "deflate"
          ? { decode: (b: Buffer) => zlib().inflateRawSync(b), encode: (b: Buffer) => zlib().deflateRawSync(b) }
          : undefined;
  if (!codec) return undefined;
  return (body) => codec.encode(Buffer.from(rewriteHtml(codec.decode(body).toString("utf8"), url), "utf8"));
}

function storage(handler: ResourceHandler): Connecter & RestStorage {
  return { connect: handler, connectMethods: proxyMethods, unservedVerb: "RouteMethod" };
}

export const podProxyStorage = storage(proxy("pods", podBackend));
export const serviceProxyStorage = storage(proxy("services", serviceBackend));
export function nodeProxyStorage(kubelet: KubeletClientConfig): Connecter & RestStorage {
  return storage(proxy("nodes", nodeBackend(kubelet)));
}
