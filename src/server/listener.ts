// HTTPS with ALPN h2 and http/1.1. HTTP/2 requests are served from the raw `stream` event (no
// compatibility layer on the hot path); HTTP/1.1 requests from the `request` event.
import { createSecureServer, type Http2SecureServer, type Http2Session, type ServerHttp2Stream, type IncomingHttpHeaders } from "node:http2";
import type { TLSSocket } from "node:tls";
import { ServerResponse, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { h1Exchange, h2Exchange, type Exchange, type ExchangeOptions } from "../http/exchange.js";

export interface TlsMaterial {
  cert: string;
  key: string;
  /**
   * The CAs client certificates are asked for (--client-ca-file and --requestheader-client-ca-file
   * together). The handshake only asks; each authenticator verifies against its own pool.
   */
  clientCA?: string;
}

export interface Listener {
  server: Http2SecureServer;
  /** Requests being handled right now (watches included). */
  inFlight(): number;
  /** Resolves when no request is in flight. */
  idle(): Promise<void>;
  /**
   * Ends every open connection: HTTP/2 sessions get a GOAWAY and close once their streams are
   * done, HTTP/1.1 connections are ended. Clients keep idle keep-alive connections pooled, and
   * `server.close()` waits for each of them to go.
   */
  closeConnections(): void;
  /**
   * HTTP/2 sessions get a GOAWAY: their streams in flight finish, their clients open no new ones
   * here. HTTP/1.1 connections are left as they are (ending one would cut a request in flight).
   */
  goAway(): void;
}

/** For errors with nothing left to do: a stream's (it ends; the exchange sees it closed), and the chain's (recovery answered them). */
const ignore = () => undefined;

export function createListener(tls: TlsMaterial, handle: (ex: Exchange) => Promise<void>, exchange: ExchangeOptions): Listener {
  const server = createSecureServer({
    cert: tls.cert,
    key: tls.key,
    ca: tls.clientCA,
    requestCert: Boolean(tls.clientCA),
    rejectUnauthorized: false, // verified by the authenticators: a bad certificate is a 401, none is anonymous or a token
    allowHTTP1: true,
    minVersion: "TLSv1.2",
    ALPNProtocols: ["h2", "http/1.1"],
    settings: { maxConcurrentStreams: 1000 },
  } as Parameters<typeof createSecureServer>[0]);

  let inFlight = 0;
  let idleWaiters: (() => void)[] = [];
  // One callback for every exchange: an exchange calls each close callback once.
  const closed = () => {
    inFlight--;
    if (inFlight === 0) {
      const w = idleWaiters;
      idleWaiters = [];
      w.forEach((f) => f());
    }
  };
  const track = (ex: Exchange) => {
    inFlight++;
    ex.onClose(closed);
    handle(ex).catch(ignore);
  };

  server.on("stream", (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, _flags: number, rawHeaders?: string[]) => {
    stream.on("error", ignore);
    track(h2Exchange(stream, headers, rawHeaders, exchange));
  });
  // HTTP/1.1 connections arrive as 'request'. Adding a 'request' listener makes Node also attach
  // its compatibility 'stream' listener, which we remove again: h2 streams are ours alone.
  const ownStreamListeners = server.listeners("stream");
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    if ((req as { httpVersionMajor?: number }).httpVersionMajor === 2) return;
    track(h1Exchange(req, res, exchange));
  });
  for (const l of server.listeners("stream")) {
    if (!ownStreamListeners.includes(l)) server.removeListener("stream", l as (...args: unknown[]) => void);
  }
  // An HTTP/1.1 request asking to switch protocols (WebSocket, SPDY): kube-apiserver runs its
  // whole filter chain on it before the handler hijacks the connection, and so does kapi — the
  // exchange answers on the raw socket until a handler takes the connection over.
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => undefined);
    const res = new ServerResponse(req);
    res.assignSocket(socket as Parameters<ServerResponse["assignSocket"]>[0]);
    // No parser reads this connection any more: an answer that does not switch ends it.
    res.shouldKeepAlive = false;
    res.once("finish", () => socket.end());
    track(h1Exchange(req, res, exchange, { socket, head }));
  });
  // Every connection, until it closes (HTTP/1.1 ones are plain TLS sockets, HTTP/2 ones have a session).
  const sockets = new Set<TLSSocket>();
  const sessions = new Set<Http2Session>();
  server.on("secureConnection", (socket: TLSSocket) => {
    if (socket.alpnProtocol === "h2") return;
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("session", (session: Http2Session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  server.on("sessionError", () => undefined);
  server.on("tlsClientError", () => undefined);

  return {
    server,
    inFlight: () => inFlight,
    idle: () => (inFlight === 0 ? Promise.resolve() : new Promise((r) => idleWaiters.push(r))),
    closeConnections() {
      for (const session of sessions) session.close();
      for (const socket of sockets) socket.destroySoon();
    },
    goAway() {
      for (const session of sessions) session.close();
    },
  };
}
