// What every connect verb shares (upstream's ConnectResource and UpgradeAwareProxyHandler): the
// options object passes admission as CONNECT before anything is dialled, and the request is then
// forwarded with the caller's credentials left behind. Failures are upstream's: an upgrade that
// cannot reach its backend is a reasonless 500 ("error dialing backend: ..."), a plain proxied
// request one that the proxy transport words as 503 ServiceUnavailable.
import { ApiError, type StatusReason } from "../apimachinery/errors.js";
import type { KObject } from "../apimachinery/object.js";
import type { BackendError } from "../http/dial-error.js";
import { identityHeaderPrefixes } from "../http/proxy-headers.js";
import { proxyRequest, type ProxyOptions } from "../http/reverse-proxy.js";
import type { ResourceRequest } from "./context.js";
import { writeRequest } from "./write-options.js";

/** CONNECT admission of the request's options object (kind and apiVersion v1, as the query decoded). */
export function admitConnect(r: ResourceRequest, kind: string, options: Record<string, unknown>): Promise<void> {
  const object = { kind, apiVersion: "v1", ...options } as unknown as KObject;
  return r.store.admitConnect(r.info.namespace, r.info.name, r.info.subresource, object, writeRequest(r));
}

/** The upgrade path's failure: what the responder of a connect handler writes upstream. */
export function upgradeFailure(e: BackendError): ApiError {
  return new ApiError(500, "" as StatusReason, e.dial ? `error dialing backend: ${e.message}` : e.message);
}

/** Forwards the request to `location` (kapi's Host header kept, as Go's reverse proxy keeps it). */
export function forward(r: ResourceRequest, o: Omit<ProxyOptions, "headers"> & { add?: ProxyOptions["headers"]["add"] }): Promise<void> {
  const { add, ...rest } = o;
  return proxyRequest(r.ex, { ...rest, headers: { keepHost: true, dropPrefixes: identityHeaderPrefixes, ...(add ? { add } : {}) } });
}
