// The end of the chain: a request that passed every filter goes to the handler for its path.
// Non-resource paths (health, version, metrics, discovery, openapi) are offered to each
// non-resource handler in turn; resource paths at the scope their type is served at
// (src/server/path-scope.ts) go to the REST storage of their resource or resource/subresource,
// which serves the verb when it implements it (src/handlers/rest/).
import { ApiError, methodNotSupported } from "../apimachinery/errors.js";
import type { ResourceRequest, ServerParts } from "../handlers/context.js";
import { isPretty } from "../handlers/context.js";
import { connecterFor, handlerFor, type RestStorage } from "../handlers/rest/capabilities.js";
import type { RestStorageTable } from "../handlers/rest/storage-table.js";
import { requestInfoOf, userOf, type NonResourceHandler, type RequestContext } from "../http/context.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { Handler } from "./filters/filter.js";
import { servedAtPathScope } from "./path-scope.js";
import { deprecationOf, signalDeprecation } from "./deprecation.js";
import type { DeprecatedApiLabels } from "../observability/metrics.js";

export interface RouterConfig {
  parts: ServerParts;
  /** Tried in order for every request that is not a resource request; true = handled. */
  nonResource: NonResourceHandler[];
  /** Tried first for every request: paths served by another server (true = handled there). */
  delegated?: NonResourceHandler[];
  /** The REST storage of each resource and resource/subresource. */
  storages: RestStorageTable;
  /** Records a request to a deprecated API in apiserver_requested_deprecated_apis. */
  deprecatedRequest?: (labels: DeprecatedApiLabels) => void;
}

export function createRouter(cfg: RouterConfig): Handler {
  const delegated = cfg.delegated ?? [];
  // Not async: a resource request goes to its handler with no promise or frame of the router's own.
  return (ctx) => {
    try {
      const info = requestInfoOf(ctx);
      for (let i = 0; i < delegated.length; i++) {
        // A handler that declines answers false at once: no await on the hot path.
        const handled = delegated[i]!(ctx.ex, userOf(ctx), info);
        if (handled === true) return Promise.resolve();
        if (handled !== false) return handled.then((yes) => (yes ? undefined : routeAfterDelegated(cfg, ctx, i + 1)));
      }
      return info.isResourceRequest ? routeResource(cfg, ctx) : routeNonResource(cfg, ctx);
    } catch (e) {
      return Promise.reject(e);
    }
  };
}

/** The rest of the route once delegated handler `from - 1` declined after an await. */
async function routeAfterDelegated(cfg: RouterConfig, ctx: RequestContext, from: number): Promise<void> {
  const info = requestInfoOf(ctx);
  const delegated = cfg.delegated ?? [];
  for (let i = from; i < delegated.length; i++) if (await delegated[i]!(ctx.ex, userOf(ctx), info)) return;
  return info.isResourceRequest ? routeResource(cfg, ctx) : routeNonResource(cfg, ctx);
}

async function routeNonResource(cfg: RouterConfig, ctx: RequestContext): Promise<void> {
  const info = requestInfoOf(ctx);
  const user = userOf(ctx);
  for (const h of cfg.nonResource) if (await h(ctx.ex, user, info)) return;
  throw notFoundPath();
}

/** The resource's handler for the verb (a throw here is the caller's to turn into a rejection). */
function routeResource(cfg: RouterConfig, ctx: RequestContext): Promise<void> {
  const info = requestInfoOf(ctx);
  const { parts } = cfg;
  const type = parts.types.get(info.apiGroup, info.apiVersion, info.resource);
  // Only the proxy subresources take a path after their name (/{name}/proxy/{path}).
  if (!type || (info.parts.length > 3 && info.subresource !== "proxy") || !servedAtPathScope(type.namespaced, info)) throw notFoundPath();
  // The deprecated verb-in-path forms: only GET /watch/... is served (no /proxy/... paths).
  if (info.verbViaPath && (info.verb !== "watch" || (ctx.ex.method !== "GET" && ctx.ex.method !== "HEAD"))) throw notFoundPath();
  const r = new RoutedRequest(ctx, info, userOf(ctx), type, parts.stores.for(type), parts);
  const deprecation = deprecationOf(type, info.subresource);
  if (deprecation) signalDeprecation(ctx, info, deprecation, cfg.deprecatedRequest);
  const storage = cfg.storages.storageFor(type, info.subresource);
  if (!storage) {
    if (info.subresource) throw notFoundPath();
    throw methodNotSupported(type.gr, info.verb); // a type that stores nothing and has no storage of its own
  }
  const handler = connecterFor(storage, ctx.ex.method) ?? (declaresVerb(type, info.subresource, info.verb) ? handlerFor(storage, info.verb) : undefined);
  if (!handler) throw unservedVerb(storage, type, info.verb);
  return handler(r);
}

/** The verbs the type declares for the resource itself or for the subresource (discovery's verbs). */
function declaresVerb(type: ResourceType, subresource: string, verb: string): boolean {
  if (!subresource) return type.verbs.has(verb);
  return type.subresources.some((s) => s.name === subresource && s.verbs.includes(verb));
}

function unservedVerb(storage: RestStorage, type: ResourceType, verb: string): ApiError {
  if (storage.unservedVerb === "NotFound") return notFoundPath();
  if (storage.unservedVerb === "RouteMethod") return new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {});
  return methodNotSupported(type.gr, verb);
}

export function notFoundPath(): ApiError {
  return new ApiError(404, "NotFound", "the server could not find the requested resource", {});
}

// A class rather than an object literal with a getter: such a literal is a dictionary-mode object
// with a closure of its own, held by every watch for its whole life (issue 26).
class RoutedRequest implements ResourceRequest {
  readonly ex: ResourceRequest["ex"];
  readonly pretty: boolean;
  readonly warnings: string[];
  constructor(
    readonly ctx: RequestContext,
    readonly info: ResourceRequest["info"],
    readonly user: ResourceRequest["user"],
    readonly type: ResourceType,
    readonly store: ResourceRequest["store"],
    readonly parts: ServerParts,
  ) {
    this.ex = ctx.ex;
    this.pretty = isPretty(ctx.ex);
    this.warnings = ctx.warnings;
  }
  /** Made only when a handler asks for it (see RequestContext.signal). */
  get signal(): AbortSignal {
    return this.ctx.signal;
  }
}
