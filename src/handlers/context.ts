// What a verb handler gets: the request's context (deadline signal, warnings), the exchange, the
// parsed request, the caller, the type, and the server's shared parts.
import { parseGoBool } from "../apimachinery/booleans.js";
import type { UserInfo } from "../apimachinery/user.js";
import type { CodecSet } from "../encoding/negotiate.js";
import type { FeatureGates } from "../apimachinery/feature-gates.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { GenericStore } from "../registry/store.js";
import type { Stores } from "../registry/stores.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import type { RequestContext } from "../http/context.js";
import type { Exchange } from "../http/exchange.js";
import type { RequestInfo } from "../http/request-info.js";
import type { RequestPathMetrics } from "../observability/request-path-metrics.js";
import type { WatchMetrics } from "../observability/watch-metrics.js";

export interface ServerParts {
  /** The only way to read or write objects: one store per type for gets, lists and watches (from the watch caches) and writes. */
  stores: Stores;
  types: TypeRegistry;
  codecs: CodecSet;
  gates: FeatureGates;
  /** Active streams (watches) to end on shutdown. */
  streams: Set<{ stop(): void }>;
  /** The server's authorizer chain (create-on-update is authorized as `create`). */
  authorizer?: import("../authz/authorizer.js").Authorizer;
  /** --min-request-timeout: a watch without timeoutSeconds lasts this to twice this (default 1800). */
  minRequestTimeoutSeconds?: number;
  /** The watch event metrics (absent: not counted). */
  watchMetrics?: WatchMetrics;
  /** The request body sizes (absent: not counted). */
  requestPathMetrics?: RequestPathMetrics;
}

export interface ResourceRequest {
  /** The request's context: `ctx.signal` aborts at the deadline or when the client goes away. */
  ctx: RequestContext;
  ex: Exchange;
  info: RequestInfo;
  user: UserInfo;
  type: ResourceType;
  /** The store of the request's type (parts.stores.for(type)). */
  store: GenericStore;
  parts: ServerParts;
  pretty: boolean;
  /** Warning header entries collected while handling (field validation, deprecations): ctx.warnings. */
  warnings: string[];
  /** Aborts at the request's deadline or when the client goes away (ctx.signal, made on first read). */
  signal?: AbortSignal;
}

export type ResourceHandler = (r: ResourceRequest) => Promise<void>;

/**
 * `pretty` is read with Go's ParseBool, not as the other query booleans: it predates the options
 * types and upstream never moved it (so `pretty=yes` is false). Without a value, browsers and
 * command-line fetchers get indented output.
 */
export function isPretty(ex: Exchange): boolean {
  const p = ex.query.get("pretty");
  if (p) return parseGoBool(p) ?? false;
  const ua = String(ex.headers["user-agent"] ?? "");
  return /^(curl|Wget|Mozilla\/5\.0)/.test(ua);
}
