// The request path, one direction: request info → authentication → authorization → route.
import type { TLSSocket } from "node:tls";
import { ApiError, badRequest, forbidden, notFound, unauthorized, methodNotSupported } from "../apimachinery/errors.js";
import type { AuthnOutcome } from "../authn/union.js";
import type { AuthnRequest } from "../authn/authenticator.js";
import type { UserInfo } from "../authn/user.js";
import type { Authorizer } from "../authz/authorizer.js";
import { impersonate } from "./filters/impersonation.js";
import { jsonCodec } from "../encoding/codec.js";
import type { ResourceHandler, ServerParts } from "../handlers/context.js";
import { isPretty } from "../handlers/context.js";
import { handleCreate, handleUpdate } from "../handlers/write.js";
import { handleDelete, handleDeleteCollection } from "../handlers/delete.js";
import { handleGet, handleList } from "../handlers/read.js";
import { handleWatch } from "../handlers/watch.js";
import { handlePatch } from "../handlers/patch.js";
import type { Exchange } from "../http/exchange.js";
import type { RequestLabels, ServerMetrics } from "../observability/metrics.js";
import { MalformedPathError, parseRequestInfo, type RequestInfo } from "../http/request-info.js";
import { writeError } from "../http/respond.js";

/** A handler for a path outside /api and /apis resources (health, version, discovery, openapi). */
export type NonResourceHandler = (ex: Exchange, user: UserInfo, info: RequestInfo) => Promise<boolean> | boolean;

export interface DispatchConfig {
  parts: ServerParts;
  metrics?: ServerMetrics;
  authenticate: (req: AuthnRequest) => Promise<AuthnOutcome>;
  authorizer: Authorizer;
  /** Tried in order for every request that is not a resource request; true = handled. */
  nonResource: NonResourceHandler[];
  /** Extra verb handlers by "group/resource/subresource" (reviews, scale, ...). */
  subresourceHandlers?: Map<string, Partial<Record<string, ResourceHandler>>>;
}

const verbHandlers: Record<string, ResourceHandler> = {
  get: handleGet,
  list: handleList,
  watch: handleWatch,
  create: handleCreate,
  update: handleUpdate,
  patch: handlePatch,
  delete: handleDelete,
  deletecollection: handleDeleteCollection,
};

type Peer = AuthnRequest["peerCertificate"];
// A connection's client certificate does not change: read it once per socket (reading it is
// costly, and every request on a keep-alive or HTTP/2 connection would otherwise repeat it).
const peers = new WeakMap<TLSSocket, Peer | null>();

export function peerCertificate(socket: TLSSocket | undefined): Peer {
  if (!socket || !socket.authorized) return undefined;
  const known = peers.get(socket);
  if (known !== undefined) return known ?? undefined;
  const cert = socket.getPeerCertificate?.();
  let peer: Peer;
  if (cert && cert.subject) {
    const o = cert.subject.O as string | string[] | undefined;
    peer = { commonName: String(cert.subject.CN ?? ""), organizations: o === undefined ? [] : Array.isArray(o) ? o : [o] };
  }
  peers.set(socket, peer ?? null);
  return peer;
}

export function createDispatcher(cfg: DispatchConfig) {
  return async function dispatch(ex: Exchange): Promise<void> {
    try {
      let info: RequestInfo;
      try {
        info = parseRequestInfo(ex.method, ex.path, ex.query);
      } catch (e) {
        if (e instanceof MalformedPathError) throw badRequest(e.message);
        throw e;
      }
      if (cfg.metrics) {
        const done = cfg.metrics.begin(metricLabels(info, ex), ex.query.getAll("dryRun").includes("All"));
        ex.onClose(() => done(ex.status || 499));
      }
      const authn = await cfg.authenticate({ path: ex.path, headers: ex.headers, peerCertificate: peerCertificate(ex.socket) });
      if ("error" in authn) throw unauthorized();
      const user = await impersonate(authn.user, ex.headers, cfg.authorizer);
      const decision = await cfg.authorizer.authorize({
        user,
        verb: info.verb,
        isResourceRequest: info.isResourceRequest,
        path: ex.path,
        namespace: info.namespace,
        apiGroup: info.apiGroup,
        apiVersion: info.apiVersion,
        resource: info.resource,
        subresource: info.subresource,
        name: info.name,
      });
      if (decision.decision !== "allow") throw forbiddenFor(user, info, decision.reason);
      if (!info.isResourceRequest) {
        for (const h of cfg.nonResource) if (await h(ex, user, info)) return;
        throw notFoundPath();
      }
      await routeResource(cfg, ex, info, user);
    } catch (e) {
      writeError(ex, e, jsonCodec);
    }
  };
}

async function routeResource(cfg: DispatchConfig, ex: Exchange, info: RequestInfo, user: UserInfo): Promise<void> {
  const parts = cfg.parts;
  const type = parts.types.get(info.apiGroup, info.apiVersion, info.resource);
  if (!type) throw notFoundPath();
  if (info.parts.length > 3) throw notFoundPath();
  const r = { ex, info, user, type, parts, pretty: isPretty(ex), warnings: [] as string[] };
  if (info.subresource) {
    const special = cfg.subresourceHandlers?.get(`${type.group}/${type.resource}/${info.subresource}`);
    const h = special?.[info.verb];
    if (h) return h(r);
    const sub = type.facts.subresources.find((s) => s.name === info.subresource);
    if (!sub || (info.subresource !== "status" && info.subresource !== "finalize")) throw notFoundPath();
    if (!sub.verbs.includes(info.verb as never)) throw methodNotSupported(type.gr, info.verb);
    const handler = verbHandlers[info.verb];
    if (!handler) throw methodNotSupported(type.gr, info.verb);
    return handler(r);
  }
  const special = cfg.subresourceHandlers?.get(`${type.group}/${type.resource}/`);
  const sh = special?.[info.verb];
  if (sh) return sh(r);
  if (type.virtual) throw methodNotSupported(type.gr, info.verb);
  if (type.namespaced && !info.namespace && info.verb !== "list" && info.verb !== "watch") throw notFoundPath();
  if (!type.verbs.has(info.verb) && !(info.verb === "watch" && type.verbs.has("watch"))) {
    throw methodNotSupported(type.gr, info.verb);
  }
  const handler = verbHandlers[info.verb];
  if (!handler) throw methodNotSupported(type.gr, info.verb);
  return handler(r);
}

const metricVerbs: Record<string, string> = { get: "GET", list: "LIST", watch: "WATCH", create: "POST", update: "PUT", patch: "PATCH", delete: "DELETE", deletecollection: "DELETECOLLECTION" };

/** Labels as kube-apiserver reports them (verb names, scope), for the request metrics. */
function metricLabels(info: RequestInfo, ex: Exchange): RequestLabels {
  if (!info.isResourceRequest) return { verb: ex.method.toUpperCase(), group: "", version: "", resource: "", subresource: "", scope: "" };
  let verb = metricVerbs[info.verb] ?? info.verb.toUpperCase();
  if (verb === "PATCH" && String(ex.headers["content-type"] ?? "").startsWith("application/apply-patch")) verb = "APPLY";
  const scope = info.name || info.verb === "create" ? "resource" : info.namespace ? "namespace" : "cluster";
  return { verb, group: info.apiGroup, version: info.apiVersion, resource: info.resource, subresource: info.subresource, scope };
}

export function notFoundPath(): ApiError {
  return new ApiError(404, "NotFound", "the server could not find the requested resource", {});
}

function forbiddenFor(user: UserInfo, info: RequestInfo, reason: string): ApiError {
  const suffix = reason ? `: ${reason}` : "";
  if (!info.isResourceRequest) {
    return new ApiError(403, "Forbidden", `forbidden: User "${user.name}" cannot ${info.verb} path "${info.path}"${suffix}`, {});
  }
  const res = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  const gr = { group: info.apiGroup, resource: res };
  const scope = info.namespace ? ` in the namespace "${info.namespace}"` : " at the cluster scope";
  const e = forbidden(gr, info.name, `User "${user.name}" cannot ${info.verb} resource "${info.resource}" in API group "${info.apiGroup}"${scope}${suffix}`);
  return e;
}

export { notFound };
