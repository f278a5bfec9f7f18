// Requests under /apis/<group>/<version> of a group version an extension server serves go to it
// (upstream: kube-aggregator's proxyHandler). The request has passed this server's filter chain
// (authentication, impersonation, flow control, authorization), as in kube-apiserver; the backend
// is told who the caller is in client-go's auth-proxy headers (X-Remote-User, X-Remote-Uid,
// X-Remote-Group, X-Remote-Extra-*), over TLS with the front-proxy client certificate, and
// authorizes the request itself. The caller's own credentials and identity headers never cross
// (src/http/proxy-headers.ts). An APIService that is not Available, a service that cannot be
// resolved, or a backend that cannot be reached is answered as upstream does: 503 in plain text.
import type { UserInfo } from "../apimachinery/user.js";
import type { Exchange } from "../http/exchange.js";
import { proxyRequest } from "../http/reverse-proxy.js";
import { ApiError } from "../apimachinery/errors.js";
import type { BackendError } from "../http/dial-error.js";
import { identityHeaderPrefixes } from "../http/proxy-headers.js";
import type { ProxyClientCert } from "./backend-get.js";
import type { ProxyTable, RemoteGroupVersion } from "./proxy-table.js";
import { joinHostPort, type AggregatorResolver } from "./service-resolver.js";

export interface ProxyHandlerDeps {
  table: ProxyTable;
  resolve(): AggregatorResolver | undefined;
  proxyClientCert: ProxyClientCert | undefined;
}

/** Go's http.Error: the text and a newline, as text/plain, not sniffable. */
export function plainError(ex: Exchange, status: number, text: string): void {
  ex.head(status, { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" });
  ex.end(`${text}\n`);
}

const openapiPrefix = "/openapi/v3";

/**
 * The group and version a path under /apis/<group>/<version> names, or its OpenAPI v3 document's
 * path /openapi/v3/apis/<group>/<version> (listed in our index at the backend's URL, so fetched
 * from the backend as it is).
 */
export function groupVersionOf(path: string): { group: string; version: string } | undefined {
  const p = path.startsWith(`${openapiPrefix}/apis/`) ? path.slice(openapiPrefix.length) : path;
  if (!p.startsWith("/apis/")) return undefined;
  const [group, version, ...rest] = p.slice("/apis/".length).split("/");
  if (p !== path && rest.length > 0) return undefined;
  return group && version ? { group, version } : undefined;
}

/** Go's headerKeyEscape: bytes that cannot stand in a header name are percent-encoded. */
function headerKeyEscape(key: string): string {
  let out = "";
  for (const b of Buffer.from(key, "utf8")) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9!#$&'*+\-.^_`|~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** client-go's SetAuthProxyHeaders. */
export function authProxyHeaders(user: UserInfo): [string, string][] {
  const out: [string, string][] = [["X-Remote-User", user.name]];
  if (user.uid) out.push(["X-Remote-Uid", user.uid]);
  for (const g of user.groups ?? []) out.push(["X-Remote-Group", g]);
  for (const [key, values] of Object.entries(user.extra ?? {})) for (const v of values) out.push([`X-Remote-Extra-${headerKeyEscape(key)}`, v]);
  return out;
}

/** Go's url.Values.Encode: keys sorted, form-encoded (with `~` left as it is). */
function encodeQuery(q: URLSearchParams): string {
  const keys = [...new Set(q.keys())].sort();
  const sorted = new URLSearchParams();
  for (const k of keys) for (const v of q.getAll(k)) sorted.append(k, v);
  return sorted.toString().replace(/%7E/g, "~");
}

export function aggregatorProxy(d: ProxyHandlerDeps) {
  // Not async: a path no extension server serves is declined without a promise.
  return (ex: Exchange, user: UserInfo): Promise<boolean> | false => {
    const gv = groupVersionOf(ex.path);
    const route = gv && d.table.route(gv.group, gv.version);
    if (!route) return false;
    return forward(ex, user, route, d).then(() => true);
  };
}

async function forward(ex: Exchange, user: UserInfo, route: RemoteGroupVersion, d: ProxyHandlerDeps): Promise<void> {
  const resolve = d.resolve();
  if (!route.available || !resolve) return plainError(ex, 503, "service unavailable");
  let target;
  try {
    target = await resolve(route.service.namespace, route.service.name, route.service.port);
  } catch {
    return plainError(ex, 503, "service unavailable");
  }
  const query = encodeQuery(ex.query);
  const location = new URL(`https://${joinHostPort(target)}${ex.path}${query ? `?${query}` : ""}`);
  let failure: BackendError | undefined;
  try {
    await proxyRequest(ex, {
      location,
      tls: {
        ...(route.caBundle ? { ca: Buffer.from(route.caBundle, "base64") } : {}),
        ...(d.proxyClientCert ? { cert: d.proxyClientCert.cert, key: d.proxyClientCert.key } : {}),
        insecureSkipVerify: route.insecureSkipTLSVerify === true,
        serverName: `${route.service.name}.${route.service.namespace}.svc`,
      },
      headers: { keepHost: false, dropPrefixes: identityHeaderPrefixes, add: authProxyHeaders(user) },
      backendError: (e) => {
        failure = e;
        return new ApiError(503, "ServiceUnavailable", e.message);
      },
    });
  } catch (e) {
    // The backend failed before answering: upstream's responder writes the error as plain text.
    if (failure && !ex.headersSent) return plainError(ex, 503, failure.message);
    throw e;
  }
}
