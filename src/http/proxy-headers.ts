// Which headers cross a reverse proxy, both ways — pure functions over raw header lists (name,
// value alternating, repeats kept apart), so the policy is tested without a socket. Upstream
// strips the caller's credentials in its filters (authentication deletes Authorization,
// request-header authentication the X-Remote-* headers, impersonation the Impersonate-* ones)
// before any proxy runs; kapi's filters leave the request as it came, so the proxy drops them.

/** RFC 9110 §7.6.1's connection-specific headers, and the ones Go's reverse proxy adds to them. */
const hopByHop = new Set([
  "connection",
  "proxy-connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

export interface RequestHeaderPolicy {
  /**
   * The request asks to switch protocols and the backend is to be asked too: Connection: Upgrade
   * and the Upgrade header go through (Go's reverse proxy keeps them on an upgrade).
   */
  upgrade: boolean;
  /** Keep the client's Host (upstream's proxy verbs do); otherwise the backend's host is sent. */
  keepHost: boolean;
  /**
   * The backend's host[:port], sent as Host unless the client's is kept (Node sends no Host of
   * its own with a raw header list).
   */
  backendHost: string;
  /** The client's address, appended to X-Forwarded-For. */
  forwardedFor?: string;
  /**
   * Prefixes of header names that carry an identity the backend must not trust from the client
   * (the request-header names, Impersonate-*). Lower case.
   */
  dropPrefixes: readonly string[];
  /** Headers added after the client's were filtered (an identity the proxy vouches for). */
  add?: readonly (readonly [string, string])[];
}

/** Identity headers nobody but kapi may set towards a backend. */
export const identityHeaderPrefixes: readonly string[] = ["x-remote-", "impersonate-"];

/** The header names a Connection header lists (they are hop-by-hop for this hop). */
function connectionTokens(raw: readonly string[]): Set<string> {
  const tokens = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() !== "connection") continue;
    for (const t of raw[i + 1]!.split(",")) {
      const token = t.trim().toLowerCase();
      if (token) tokens.add(token);
    }
  }
  return tokens;
}

/** The raw request headers to send to the backend. */
export function forwardedRequestHeaders(raw: readonly string[], p: RequestHeaderPolicy): string[] {
  const listed = connectionTokens(raw);
  const out: string[] = [];
  let forwardedFor: string | undefined;
  let upgradeProtocol: string | undefined;
  let host: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    const lower = name.toLowerCase();
    // HTTP/2 pseudo-headers (":path", ":authority") describe this hop's request line; its
    // authority is the Host an HTTP/1.1 client would have sent.
    if (lower === ":authority" || lower === "host") {
      host ??= value;
      continue;
    }
    if (lower.startsWith(":")) continue;
    if (lower === "upgrade") {
      upgradeProtocol = upgradeProtocol === undefined ? value : `${upgradeProtocol}, ${value}`;
      continue;
    }
    if (hopByHop.has(lower) || listed.has(lower)) continue;
    if (lower === "authorization") continue;
    if (p.dropPrefixes.some((prefix) => lower.startsWith(prefix))) continue;
    if (lower === "x-forwarded-for") {
      forwardedFor = forwardedFor === undefined ? value : `${forwardedFor}, ${value}`;
      continue;
    }
    out.push(name, value);
  }
  out.unshift("Host", p.keepHost && host !== undefined ? host : p.backendHost);
  if (p.upgrade && upgradeProtocol !== undefined) out.push("Connection", "Upgrade", "Upgrade", upgradeProtocol);
  if (p.forwardedFor) forwardedFor = forwardedFor === undefined ? p.forwardedFor : `${forwardedFor}, ${p.forwardedFor}`;
  if (forwardedFor !== undefined) out.push("X-Forwarded-For", forwardedFor);
  for (const [name, value] of p.add ?? []) out.push(name, value);
  return out;
}

/**
 * The backend's response headers to answer with: hop-by-hop ones dropped (they described the
 * backend's connection, and HTTP/2 refuses them), repeated ones kept as lists.
 */
export function returnedResponseHeaders(raw: readonly string[], drop: ReadonlySet<string> = noNames): Record<string, string | string[]> {
  const listed = connectionTokens(raw);
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase();
    if (hopByHop.has(lower) || listed.has(lower) || drop.has(lower)) continue;
    const value = raw[i + 1]!;
    const prior = out[lower];
    out[lower] = prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [prior, value];
  }
  return out;
}

const noNames: ReadonlySet<string> = new Set();

/** Upstream's httpstream.IsUpgradeRequest: a Connection header naming "upgrade". */
export function isUpgradeRequest(headers: Record<string, string | string[] | undefined>): boolean {
  const connection = headers["connection"];
  const values = Array.isArray(connection) ? connection : connection === undefined ? [] : [connection];
  return values.some((v) => v.split(",").some((t) => t.trim().toLowerCase() === "upgrade"));
}

/** The raw head of a 101 answer, as the backend sent it, to write on the client's connection. */
export function switchingProtocolsHead(statusMessage: string, raw: readonly string[]): string {
  let head = `HTTP/1.1 101 ${statusMessage || "Switching Protocols"}\r\n`;
  for (let i = 0; i < raw.length; i += 2) head += `${raw[i]}: ${raw[i + 1]}\r\n`;
  return head + "\r\n";
}
