// The end of the chain: a request that passed every filter goes to the handler for its path.
// Non-resource paths (health, version, metrics, discovery, openapi) are offered to each
// non-resource handler in turn; resource paths at the scope their type is served at
// (src/server/path-scope.ts) go to a subresource handler registered for the group/resource
// (reviews, scale), or to the verb handler when the type serves that verb.
import { ApiError, methodNotSupported } from "../apimachinery/errors.js";
import type { ResourceHandler, ResourceRequest, ServerParts } from "../handlers/context.js";
import { isPretty } from "../handlers/context.js";
import { handleDelete, handleDeleteCollection } from "../handlers/delete.js";
import { handlePatch } from "../handlers/patch.js";
import { handleGet, handleList } from "../handlers/read.js";
import { handleWatch } from "../handlers/watch.js";
import { handleCreate, handleUpdate } from "../handlers/write.js";
import { requestInfoOf, userOf, type NonResourceHandler, type RequestContext } from "../http/context.js";
import type { Handler } from "./filters/filter.js";
import { servedAtPathScope } from "./path-scope.js";

/** Verb handlers by "group/resource/subresource" ("" subresource: the resource itself). */
export type SpecialHandlers = Map<string, Partial<Record<string, ResourceHandler>>>;

export interface RouterConfig {
  parts: ServerParts;
  /** Tried in order for every request that is not a resource request; true = handled. */
  nonResource: NonResourceHandler[];
  special?: SpecialHandlers;
  /** Verb handlers of subresources any type may declare (scale), by subresource name. */
  declared?: Map<string, Partial<Record<string, ResourceHandler>>>;
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

/** The only subresources served by the generic verb handlers. */
const genericSubresources = new Set(["status", "finalize", "approval", "ephemeralcontainers"]);

export function createRouter(cfg: RouterConfig): Handler {
  return async (ctx) => {
    const info = requestInfoOf(ctx);
    if (info.isResourceRequest) return routeResource(cfg, ctx);
    const user = userOf(ctx);
    for (const h of cfg.nonResource) if (await h(ctx.ex, user, info)) return;
    throw notFoundPath();
  };
}

async function routeResource(cfg: RouterConfig, ctx: RequestContext): Promise<void> {
  const info = requestInfoOf(ctx);
  const { parts } = cfg;
  const type = parts.types.get(info.apiGroup, info.apiVersion, info.resource);
  if (!type || info.parts.length > 3 || !servedAtPathScope(type.namespaced, info)) throw notFoundPath();
  // The deprecated verb-in-path forms: only GET /watch/... is served (no /proxy/... paths).
  if (info.verbViaPath && (info.verb !== "watch" || (ctx.ex.method !== "GET" && ctx.ex.method !== "HEAD"))) throw notFoundPath();
  const r: ResourceRequest = {
    ctx,
    ex: ctx.ex,
    info,
    user: userOf(ctx),
    type,
    parts,
    pretty: isPretty(ctx.ex),
    warnings: ctx.warnings,
    // A getter: the signal is made only when a handler asks for it (see RequestContext.signal).
    get signal() {
      return ctx.signal;
    },
  };
  // A deprecated custom resource version warns on every request to it.
  if (type.deprecationWarning) ctx.warnings.push(type.deprecationWarning);
  const sub = info.subresource ? type.subresources.find((s) => s.name === info.subresource) : undefined;
  const special = (cfg.special?.get(`${type.group}/${type.resource}/${info.subresource}`) ?? (sub && cfg.declared?.get(sub.name)))?.[info.verb];
  if (special) return special(r);
  if (info.subresource) {
    if (!sub || !genericSubresources.has(info.subresource)) throw notFoundPath();
    if (!sub.verbs.includes(info.verb as never)) throw methodNotSupported(type.gr, info.verb);
  } else {
    if (type.virtual) throw methodNotSupported(type.gr, info.verb);
    if (!type.verbs.has(info.verb)) throw methodNotSupported(type.gr, info.verb);
  }
  const handler = verbHandlers[info.verb];
  if (!handler) throw methodNotSupported(type.gr, info.verb);
  return handler(r);
}

export function notFoundPath(): ApiError {
  return new ApiError(404, "NotFound", "the server could not find the requested resource", {});
}
