// URL rewriting of the proxy verbs (upstream's UpgradeAwareHandler and proxy Transport in
// k8s.io/apimachinery/pkg/util/proxy): the path sent to the backend, the redirect of a root path
// without its slash, the prefix the backend's own links need to come back through kube-apiserver
// (X-Forwarded-Uri, Location). Pure functions of strings.

/** Go's path.Clean. */
export function cleanPath(p: string): string {
  if (p === "") return ".";
  const rooted = p.startsWith("/");
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!rooted) out.push("..");
      continue;
    }
    out.push(seg);
  }
  const joined = (rooted ? "/" : "") + out.join("/");
  return joined === "" ? "." : joined;
}

/** Go's path.Join: the non-empty elements joined and cleaned; "" when all are empty. */
export function joinPath(...elems: string[]): string {
  const parts = elems.filter((e) => e !== "");
  return parts.length === 0 ? "" : cleanPath(parts.join("/"));
}

/**
 * The subpath a proxy request names after `/proxy` (upstream's connect options "path"): a leading
 * slash, and the request's trailing slash kept.
 */
export function proxySubpath(segments: readonly string[], requestPath: string): string {
  let p = segments.join("/");
  if (p !== "" && !p.startsWith("/")) p = `/${p}`;
  if (requestPath.endsWith("/") && !p.endsWith("/")) p += "/";
  return p;
}

export interface ProxyTarget {
  /** The backend path, or undefined when the client is to be redirected to `redirect`. */
  path?: string;
  redirect?: string;
  /** What the backend's links are prefixed with to come back through the proxy. */
  prefix: string;
}

/**
 * Where a proxy request goes on its backend: the location's path joined with the subpath, the
 * request's trailing slash kept; a GET or HEAD of the bare root is redirected to the same path
 * with a slash (upstream's fix for issue 4958).
 */
export function proxyTarget(method: string, requestPath: string, rawQuery: string, subpath: string): ProxyTarget {
  const locationPath = joinPath("", subpath);
  let suffix = locationPath;
  if (requestPath.endsWith("/") && !suffix.endsWith("/")) suffix += "/";
  const prefix = requestPath.endsWith(suffix) ? requestPath.slice(0, requestPath.length - suffix.length) : requestPath;
  let path = locationPath;
  if (!path.endsWith("/") && requestPath.endsWith("/")) path += "/";
  if (path === "" && (method === "GET" || method === "HEAD")) return { redirect: `${requestPath}/${rawQuery ? `?${rawQuery}` : ""}`, prefix };
  return { path, prefix };
}

/** X-Forwarded-Uri: the backend path as the client addressed it through the proxy. */
export function forwardedUri(prefix: string, backendPath: string): string {
  const uri = joinPath(prefix, backendPath);
  return backendPath.endsWith("/") && !uri.endsWith("/") ? `${uri}/` : uri;
}

/**
 * A URL the backend answered with (Location), rewritten to come back through the proxy when it
 * points at the backend or at the host the client asked (upstream's Transport.rewriteURL; kapi,
 * like kube-apiserver, knows no scheme or host of its own, so such URLs become absolute paths).
 */
export function rewriteBackendUrl(target: string, backendHost: string, clientHost: string, prefix: string): string {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*:)?(\/\/[^/?#]*)?([^?#]*)(.*)$/s.exec(target);
  if (!m) return target;
  const [, scheme = "", authority = "", path = "", rest = ""] = m;
  const host = authority.slice(2);
  const differentHost = authority !== "" && host !== backendHost && host !== clientHost;
  if (differentHost || !path.startsWith("/")) return target;
  const origin = host === clientHost && host !== "" ? `${scheme}${authority}` : "";
  if (path.startsWith(prefix)) return `${origin}${path}${rest}`;
  let rewritten = joinPath(prefix, path);
  if (path.endsWith("/") && !rewritten.endsWith("/")) rewritten += "/";
  return `${origin}${rewritten}${rest}`;
}

/** The URL-valued attributes of each tag upstream rewrites in proxied HTML (its atomsToAttrs). */
const urlAttributes: Record<string, readonly string[]> = {
  a: ["href"],
  applet: ["codebase"],
  area: ["href"],
  audio: ["src"],
  base: ["href"],
  blockquote: ["cite"],
  body: ["background"],
  button: ["formaction"],
  command: ["icon"],
  del: ["cite"],
  embed: ["src"],
  form: ["action"],
  frame: ["longdesc", "src"],
  head: ["profile"],
  html: ["manifest"],
  iframe: ["longdesc", "src"],
  img: ["longdesc", "src", "usemap"],
  input: ["src", "usemap", "formaction"],
  ins: ["cite"],
  link: ["href"],
  object: ["classid", "codebase", "data", "usemap"],
  q: ["cite"],
  script: ["src"],
  source: ["src"],
  video: ["poster", "src"],
};

const startTag = /<([a-zA-Z][a-zA-Z0-9]*)(\s[^<>]*?)?(\/?)>/g;
const attribute = /([^\s"'<>\/=]+)(\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

const htmlUnescape = (s: string) => s.replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">");
const htmlEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&#34;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * Proxied HTML with the URL attributes of its start tags passed through `rewrite` (upstream's
 * rewriteHTML). Everything else is left byte for byte; a rewritten attribute is written in double
 * quotes, as Go's tokenizer writes attributes back.
 */
export function rewriteHtml(html: string, rewrite: (url: string) => string): string {
  return html.replace(startTag, (tag, name: string, attrs: string | undefined, selfClosing: string) => {
    const names = urlAttributes[name.toLowerCase()];
    if (!names || !attrs) return tag;
    const rewritten = attrs.replace(attribute, (whole, key: string, assigned: string | undefined, dq?: string, sq?: string, bare?: string) => {
      if (!assigned || !names.includes(key.toLowerCase())) return whole;
      const value = htmlUnescape(dq ?? sq ?? bare ?? "");
      return `${key}="${htmlEscape(rewrite(value))}"`;
    });
    return `<${name}${rewritten}${selfClosing}>`;
  });
}
