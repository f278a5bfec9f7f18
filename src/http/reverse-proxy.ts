// Forwards one request to a backend over HTTP or TLS and streams the answer back (upstream's
// UpgradeAwareHandler): bodies flow both ways as they come, with backpressure; a client that goes
// away aborts the backend request; a backend that cannot be reached is the caller's error, within
// a dial timeout, never a hang. A request asking to switch protocols (WebSocket, SPDY) is sent on
// a connection of its own and, once the backend answers 101, the two raw connections are joined.
// Where the request goes and which headers cross is the caller's choice (./proxy-headers.ts).
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP, type Socket } from "node:net";
import { ApiError, badRequest } from "../apimachinery/errors.js";
import { BackendError, DialTimeoutError, dialFailure, exchangeFailure } from "./dial-error.js";
import type { Exchange } from "./exchange.js";
import {
  forwardedRequestHeaders,
  isUpgradeRequest,
  returnedResponseHeaders,
  switchingProtocolsHead,
  type RequestHeaderPolicy,
} from "./proxy-headers.js";
import { closeTogether } from "./close-together.js";
import { backendSwitchError, isTunnelingRequest, joinTunnel, spdyRequestHeaders, tunneledProtocols } from "./spdy-tunnel.js";

/** How the backend's TLS is checked and what kapi presents to it. */
export interface BackendTls {
  /** PEM CA bundle the backend's certificate must chain to; absent: the system's roots. */
  ca?: string | Buffer;
  /** PEM client certificate and key kapi authenticates with. */
  cert?: string | Buffer;
  key?: string | Buffer;
  /** Accept any certificate (upstream's insecureSkipTLSVerify). */
  insecureSkipVerify?: boolean;
  /** The name the certificate must carry, when not the location's host. */
  serverName?: string;
}

export interface ProxyOptions {
  /** Where the request goes: scheme, host, port, path and query, already rewritten. */
  location: URL;
  /** For an https location. */
  tls?: BackendTls;
  /** Which of the client's headers cross, and what is added (the proxy sets upgrade and X-Forwarded-For). */
  headers: Omit<RequestHeaderPolicy, "upgrade" | "forwardedFor" | "backendHost">;
  /** The error answered when the backend fails before anything of its answer was sent. */
  backendError(err: BackendError): ApiError;
  /** The backend's response headers, after hop-by-hop ones were dropped: the caller may change them. */
  rewriteResponseHeaders?(headers: Record<string, string | string[]>): void;
  /**
   * A rewrite of the whole answer body, when the caller wants one for these (already rewritten)
   * headers: the body is then read whole, passed through it, and sent with its new length.
   */
  rewriteBody?(headers: Record<string, string | string[]>): ((body: Buffer) => Buffer) | undefined;
  /** Only an upgrade may go through (exec, attach, portforward): others are 400 as upstream. */
  upgradeRequired?: boolean;
  /** How long connecting (and the TLS handshake) may take; 30 s, upstream's dialer, by default. */
  dialTimeoutMs?: number;
  /**
   * A WebSocket asking for "SPDY/3.1+…" subprotocols is tunnelled to a SPDY upgrade of the backend
   * (./spdy-tunnel.ts; pods/portforward, as kube-apiserver 1.34).
   */
  tunnelSpdyOverWebSocket?: boolean;
}

const defaultDialTimeoutMs = 30_000;

// Kept-alive connections to backends, shared: an agent keys its pool by host, port and TLS
// settings, so requests to different backends or with different credentials never share one.
// Idle sockets are unreferenced by Node and closed after Go's IdleConnTimeout.
const httpAgent = new HttpAgent({ keepAlive: true, timeout: 90_000 });
const httpsAgent = new HttpsAgent({ keepAlive: true, timeout: 90_000 });

/** Forwards the exchange's request to `o.location`; resolves when the answer (or tunnel) is over. */
export function proxyRequest(ex: Exchange, o: ProxyOptions): Promise<void> {
  const upgrading = ex.upgrade !== undefined && isUpgradeRequest(ex.headers);
  if (o.upgradeRequired && !upgrading) return Promise.reject(badRequest("Upgrade request required"));
  const forwarded = forwardedRequestHeaders(ex.rawHeaders ?? flatHeaders(ex.headers), {
    ...o.headers,
    upgrade: upgrading,
    forwardedFor: ex.socket?.remoteAddress,
    backendHost: o.location.host,
  });
  const tunnel = upgrading && o.tunnelSpdyOverWebSocket && isTunnelingRequest(ex.headers);
  const headers = tunnel ? spdyRequestHeaders(forwarded, tunneledProtocols(ex.headers)) : forwarded;
  // An upgraded connection leaves the pool for good: it gets one of its own.
  const { req, secure, hostname, port } = backendRequest(o.location, o.tls, tunnel ? "POST" : ex.method, headers, upgrading);
  return new Promise<void>((resolve, reject) => {
    let answered = false;
    const fail = (err: BackendError) => {
      if (answered) return;
      answered = true;
      reject(o.backendError(err));
    };
    const dialed = watchDial(req, secure, o.dialTimeoutMs ?? defaultDialTimeoutMs);
    req.on("error", (err) => {
      const e = dialed.connected() ? exchangeFailure(err, hostname, port) : dialFailure(err, hostname, port);
      if (!answered) return fail(e);
      ex.abort();
    });
    // The client went away: nothing waits for the backend any more.
    ex.onClose(() => {
      if (!req.destroyed) req.destroy();
      resolve();
    });
    req.on("response", (res) => {
      dialed.done();
      if (upgrading && res.statusCode !== 101 && (res.statusCode ?? 0) < 400) {
        res.resume();
        return fail(new BackendError(`invalid upgrade response: status code ${res.statusCode}`, false));
      }
      answered = true;
      relayResponse(ex, res, o, resolve);
    });
    req.on("upgrade", (res, backend: Socket, head: Buffer) => {
      dialed.done();
      answered = true;
      if (!tunnel) return join(ex, res, backend, head, resolve);
      const refused = backendSwitchError(res);
      if (refused) {
        backend.destroy();
        ex.head(500, { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" });
        ex.end(Buffer.from(`${refused}\n`));
        return resolve();
      }
      const { socket: client, head: clientHead } = ex.upgrade!.takeOver();
      joinTunnel(ex.headers, client, clientHead, res, backend, head).then(resolve);
    });
    sendBody(ex, req, upgrading);
  });
}

/** The request's body goes on as it arrives; a request without one ends at once. */
function sendBody(ex: Exchange, req: ClientRequest, upgrading: boolean): void {
  const hasBody = !upgrading && (ex.headers["content-length"] !== undefined || ex.headers["transfer-encoding"] !== undefined || ex.httpVersion === "2");
  if (!hasBody) {
    req.end();
    return;
  }
  const body = ex.requestStream?.();
  if (body) body.pipe(req);
  else ex.body(Number.MAX_SAFE_INTEGER).then((b) => req.end(b), () => req.destroy());
}

/** The backend's status, headers and body, streamed to the client as they come. */
function relayResponse(ex: Exchange, res: IncomingMessage, o: ProxyOptions, done: () => void): void {
  const headers = returnedResponseHeaders(res.rawHeaders);
  o.rewriteResponseHeaders?.(headers);
  const rewrite = o.rewriteBody?.(headers);
  if (!rewrite) {
    ex.head(res.statusCode ?? 502, headers);
    relayBody(ex, res).then(done, done);
    return;
  }
  const chunks: Buffer[] = [];
  res.on("data", (c: Buffer) => chunks.push(c));
  res.once("end", () => {
    const body = rewrite(Buffer.concat(chunks));
    ex.head(res.statusCode ?? 502, { ...headers, "content-length": String(body.length) });
    ex.end(body);
    done();
  });
  res.once("error", () => {
    ex.abort();
    done();
  });
}

/**
 * A backend answer's body to the client as it comes, the backend paused while the client is slow;
 * resolves when it is over. Cut off mid-answer, the client's answer is cut off too: it must see
 * it failed, not a short body that looks whole.
 */
export function relayBody(ex: Exchange, res: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    res.on("data", (chunk: Buffer) => {
      if (ex.write(chunk)) return;
      res.pause();
      ex.drained().then(() => res.resume(), () => res.destroy());
    });
    res.once("end", () => {
      ex.end();
      resolve();
    });
    const cut = () => {
      ex.abort();
      resolve();
    };
    res.once("aborted", cut);
    res.once("error", cut);
    ex.onClose(() => {
      res.destroy();
      resolve();
    });
  });
}

export interface StreamRequest {
  location: URL;
  tls?: BackendTls;
  dialTimeoutMs?: number;
  /** Aborts the backend request (the client went away, the deadline passed). */
  signal?: AbortSignal;
}

/**
 * A GET of `location` made by kapi itself (no client headers), as upstream's LocationStreamer
 * makes it: resolves with the backend's answer, whatever its status; rejects with a BackendError.
 */
export function openStream(o: StreamRequest): Promise<IncomingMessage> {
  const { req, secure, hostname, port } = backendRequest(o.location, o.tls, "GET", ["Host", o.location.host], false);
  return new Promise((resolve, reject) => {
    const dialed = watchDial(req, secure, o.dialTimeoutMs ?? defaultDialTimeoutMs);
    req.on("error", (err) => reject(dialed.connected() ? exchangeFailure(err, hostname, port) : dialFailure(err, hostname, port)));
    req.on("response", (res) => {
      dialed.done();
      resolve(res);
    });
    if (o.signal) {
      if (o.signal.aborted) req.destroy();
      else o.signal.addEventListener("abort", () => req.destroy(), { once: true });
    }
    req.end();
  });
}

function backendRequest(location: URL, tls: BackendTls | undefined, method: string, headers: string[], ownConnection: boolean) {
  const secure = location.protocol === "https:";
  const hostname = location.hostname.startsWith("[") ? location.hostname.slice(1, -1) : location.hostname;
  const port = Number(location.port) || (secure ? 443 : 80);
  const req = (secure ? httpsRequest : httpRequest)({
    host: hostname,
    port,
    method,
    path: location.pathname + location.search,
    headers,
    agent: ownConnection ? false : secure ? httpsAgent : httpAgent,
    ...(secure ? tlsOptions(tls, hostname) : {}),
  });
  return { req, secure, hostname, port };
}

/** The backend switched protocols: its 101 goes to the client, then bytes flow both ways untouched. */
function join(ex: Exchange, res: IncomingMessage, backend: Socket, backendHead: Buffer, done: () => void): void {
  const { socket: client, head: clientHead } = ex.upgrade!.takeOver();
  client.write(switchingProtocolsHead(res.statusMessage ?? "", res.rawHeaders));
  if (backendHead.length > 0) client.write(backendHead);
  if (clientHead.length > 0) backend.write(clientHead);
  client.pipe(backend);
  backend.pipe(client);
  // As upstream: once either side is done, both connections close.
  closeTogether(client, backend, done);
}

/** Arms the dial timeout: the connection (and its TLS handshake) must come up in time. */
function watchDial(req: ClientRequest, secure: boolean, timeoutMs: number): { connected(): boolean; done(): void } {
  let connected = false;
  const timer = setTimeout(() => req.destroy(new DialTimeoutError()), timeoutMs);
  const up = () => {
    connected = true;
    clearTimeout(timer);
  };
  req.once("socket", (socket: Socket) => {
    // A kept-alive connection from the pool is up already (and past its handshake).
    if (!socket.connecting && (!secure || "encrypted" in socket)) return up();
    socket.once(secure ? "secureConnect" : "connect", up);
  });
  req.once("close", () => clearTimeout(timer));
  return { connected: () => connected, done: up };
}

function tlsOptions(tls: BackendTls | undefined, hostname: string): Record<string, unknown> {
  const serverName = tls?.serverName ?? (isIP(hostname) ? undefined : hostname);
  return {
    ca: tls?.ca,
    cert: tls?.cert,
    key: tls?.key,
    rejectUnauthorized: !tls?.insecureSkipVerify,
    ...(serverName ? { servername: serverName } : {}),
  };
}

function flatHeaders(h: Exchange["headers"]): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(h)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.push(name, v);
  }
  return out;
}
