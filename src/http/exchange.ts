// One request/response pair, the same shape whether it arrived over HTTP/2 (raw stream API,
// no compatibility layer) or HTTP/1.1. Handlers only see this.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { Duplex, Readable } from "node:stream";
import { constants as h2constants, sensitiveHeaders, type ServerHttp2Stream, type IncomingHttpHeaders as H2Headers } from "node:http2";
import type { TLSSocket } from "node:tls";
import { tooLarge } from "../apimachinery/errors.js";
import { negotiateContentEncoding } from "../encoding/gzip.js";
import type { ResponseBody } from "../observability/audit/event-bodies.js";

export type Headers = Record<string, string | string[] | undefined>;

export interface Exchange {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The request target as it arrived (path and raw query; the audit log's requestURI). */
  url?: string;
  headers: Headers;
  /** The headers as received, name/value alternating; repeated headers stay apart (authentication reads them). */
  rawHeaders?: string[];
  socket: TLSSocket;
  /** The protocol the request came over ("2" for HTTP/2, else the HTTP/1 minor version's "1.x"). */
  readonly httpVersion: string;
  /**
   * The connection ends once its requests in flight are done (upstream's `Connection: close`):
   * over HTTP/2 a GOAWAY is sent now, so the client opens a new connection for its next request;
   * over HTTP/1.1 this response says `Connection: close` (when its head is not sent yet).
   */
  closeConnection(): void;
  /**
   * The encoding whole response bodies may be sent in: negotiated from Accept-Encoding when the
   * server compresses responses (APIResponseCompression), absent when it does not or the client
   * takes no encoding it offers. Streams (watch, logs) are never compressed.
   */
  readonly responseEncoding?: "gzip";
  /** Reads the whole body, refusing more than `limit` bytes with 413. */
  body(limit: number): Promise<Buffer>;
  /** The body as it arrives, unread and unbounded (a proxy forwards it); absent in test doubles. */
  requestStream?(): Readable;
  /**
   * Present when the request asked to switch protocols over HTTP/1.1 (`Connection: Upgrade`):
   * the filters ran as for any request, and a handler that agrees takes the connection over.
   */
  upgrade?: UpgradeConnection;
  /**
   * Shown a whole response's body before it is encoded and written (the response writers call
   * it): the audit log keeps error Statuses and, at RequestResponse level, the body. Absent when
   * nothing observes.
   */
  observeResponse?(body: ResponseBody): void;
  /** Sends status + headers; call once. */
  head(status: number, headers: Record<string, string | number | string[]>): void;
  /**
   * A header the answer carries whoever writes it (Go's w.Header().Set before WriteHeader): a
   * filter's headers reach errors written by the stages around it too. Before head() only.
   * `unique`: the value is this response's own (an ID no other response repeats). HTTP/2 then
   * sends it as a literal that HPACK never indexes: indexed, each such value takes a slot of the
   * connection's header table and pushes out the headers every response repeats.
   */
  setResponseHeader(name: string, value: string, unique?: boolean): void;
  write(chunk: Buffer | string): boolean;
  /**
   * Holds the writes that follow until uncork() (or end()), to go out as one write request: a
   * list page's 500 memoised items cost one instead of 500 (~15% of a LIST's CPU).
   */
  cork?(): void;
  uncork?(): void;
  end(chunk?: Buffer | string): void;
  /** Cuts the response off (HTTP/2 stream reset, HTTP/1.1 connection closed): the client sees it failed. */
  abort(): void;
  readonly headersSent: boolean;
  /** The status sent with head() (0 before). */
  readonly status: number;
  /** Body bytes handed to write() and end() so far (the response size metrics). */
  readonly bytesWritten: number;
  readonly closed: boolean;
  /** `cb` is called once when the response's stream closes (never, when it closed before this call). */
  onClose(cb: () => void): void;
  /** Resolves when the peer can take more bytes (backpressure). */
  drained(): Promise<void>;
  /** Bytes written but not yet taken by the peer. */
  pending(): number;
}

/** An HTTP/1.1 connection whose request asked to switch protocols. */
export interface UpgradeConnection {
  /**
   * Hands the raw connection and the bytes the client sent after its request head to the caller,
   * which writes the 101 and everything after; the exchange's status reads 101 from now on. Once.
   */
  takeOver(): { socket: Duplex; head: Buffer };
}

// Upstream reads at most limit+1 bytes and refuses with "limit is <limit>"; a declared length over
// the limit is refused before reading, with the same answer.
function readBody(stream: NodeJS.ReadableStream & { destroy?: () => void }, declared: string | undefined, limit: number): Promise<Buffer> {
  if (declared && Number(declared) > limit) return Promise.reject(tooLarge(`limit is ${limit}`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    stream.on("data", (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        reject(tooLarge(`limit is ${limit}`));
        return;
      }
      chunks.push(c);
    });
    stream.on("end", () => !failed && resolve(Buffer.concat(chunks)));
    stream.on("error", (e) => !failed && reject(e));
  });
}

function splitUrl(url: string): { path: string; query: URLSearchParams } {
  const q = url.indexOf("?");
  return q < 0 ? { path: url, query: new URLSearchParams() } : { path: url.slice(0, q), query: new URLSearchParams(url.slice(q + 1)) };
}

/** What the server lets every exchange do. */
export interface ExchangeOptions {
  /** APIResponseCompression: large responses may be gzipped for clients that accept it. */
  compressResponses: boolean;
}

function responseEncoding(h: Headers, o: ExchangeOptions): "gzip" | undefined {
  return o.compressResponses ? negotiateContentEncoding(header(h, "accept-encoding")) : undefined;
}

export function h2Exchange(stream: ServerHttp2Stream, headers: H2Headers, rawHeaders: string[] | undefined, o: ExchangeOptions): Exchange {
  return new H2Exchange(stream, headers, rawHeaders, o);
}

// A class, not an object literal of closures: a watch holds its exchange for up to an hour, and
// 10,000 idle watches each kept ~20 closures and a dictionary-mode object (issue 26); methods on
// the prototype cost nothing per exchange.
class H2Exchange implements Exchange {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly url: string;
  readonly headers: Headers;
  readonly socket: TLSSocket;
  readonly httpVersion = "2";
  readonly responseEncoding: "gzip" | undefined;
  private sent = false;
  private code = 0;
  private extra: Record<string, string> | undefined;
  /** The names of extra headers whose values are unique to this response (see setResponseHeader). */
  private unique: string[] | undefined;
  private written = 0;
  /** The callbacks not called yet; null once the stream closed. */
  private closeCallbacks: CloseCallbacks | null = undefined;
  private listening = false;

  constructor(
    private readonly stream: ServerHttp2Stream,
    headers: H2Headers,
    readonly rawHeaders: string[] | undefined,
    o: ExchangeOptions,
  ) {
    const url = String(headers[":path"] ?? "/");
    const { path, query } = splitUrl(url);
    this.method = String(headers[":method"] ?? "GET");
    this.path = path;
    this.query = query;
    this.url = url;
    this.headers = headers as Headers;
    this.socket = stream.session?.socket as TLSSocket;
    this.responseEncoding = responseEncoding(headers as Headers, o);
  }

  closeConnection(): void {
    const session = this.stream.session;
    // close(): GOAWAY, streams in flight (this one included) finish, then the session ends.
    if (session && !session.closed && !session.destroyed) session.close();
  }
  body(limit: number): Promise<Buffer> {
    return readBody(this.stream, this.headers["content-length"] as string | undefined, limit);
  }
  requestStream(): Readable {
    return this.stream;
  }
  head(code: number, h: Record<string, string | number | string[]>): void {
    this.sent = true;
    this.code = code;
    const stream = this.stream;
    if (stream.closed || stream.destroyed) return;
    // The headers set before (setResponseHeader) take the response's own: one object, not a copy of each.
    const out: Record<string, string | number | string[]> = this.extra ?? {};
    this.extra = undefined;
    out[":status"] = code;
    for (const name in h) out[name] = h[name]!;
    if (this.unique) (out as Record<symbol, string[]>)[sensitiveHeaders] = this.unique;
    stream.respond(out);
  }
  setResponseHeader(name: string, value: string, unique?: boolean): void {
    (this.extra ??= {})[name] = value;
    if (unique) (this.unique ??= []).push(name);
  }
  write(chunk: Buffer | string): boolean {
    const stream = this.stream;
    // Not writable: closed (Node ends the writable side when a stream closes), destroyed, or
    // ended. One check on the state the write reads anyway: a watch fan-out makes it once per
    // event and watcher, and each other object it reads is memory touched per watcher (issue 26).
    if (!stream.writable) return true;
    this.written += byteLength(chunk);
    return stream.write(chunk);
  }
  cork(): void {
    this.stream.cork();
  }
  uncork(): void {
    this.stream.uncork();
  }
  end(chunk?: Buffer | string): void {
    const stream = this.stream;
    if (stream.destroyed) return;
    // Reset by the client before the response was done (see onClose): nothing more goes out; free it.
    if (stream.closed) return void stream.destroy();
    if (chunk !== undefined) this.written += byteLength(chunk);
    stream.end(chunk);
  }
  abort(): void {
    if (!this.stream.destroyed) this.stream.close(h2constants.NGHTTP2_INTERNAL_ERROR);
  }
  get headersSent(): boolean {
    return this.sent;
  }
  get status(): number {
    return this.code;
  }
  get bytesWritten(): number {
    return this.written;
  }
  get closed(): boolean {
    return this.stream.closed || this.stream.destroyed;
  }
  onClose(cb: () => void): void {
    const cbs = this.closeCallbacks;
    if (cbs === null) return; // closed: as a 'close' listener added now would be, it is never called
    this.closeCallbacks = withCallback(cbs, cb);
    if (this.listening) return;
    this.listening = true;
    // A client that resets the stream with NO_ERROR while the response is still being written
    // leaves it closed but not destroyed: Node emits 'aborted' and holds 'close' back until the
    // writable side ends, which a streamed body or a watch would wait for forever. Each callback
    // runs at the first of the two; one pair of listeners serves every callback (the listener,
    // the metrics filter and others each ask).
    // One plain listener for both (`once` wraps each in a function and a state of its own).
    const ended = () => {
      this.runCloseCallbacks();
      // 'close' comes once the stream is destroyed; after it nothing more is called.
      if (this.stream.destroyed) this.closeCallbacks = null;
    };
    this.stream.on("aborted", ended);
    this.stream.on("close", ended);
  }
  private runCloseCallbacks(): void {
    const cbs = this.closeCallbacks;
    if (!cbs) return; // none waiting, or closed (null stays)
    this.closeCallbacks = undefined;
    callAll(cbs);
  }
  drained(): Promise<void> {
    const stream = this.stream;
    return new Promise((r) => (stream.writableNeedDrain ? stream.once("drain", () => r()) : r()));
  }
  pending(): number {
    return this.stream.writableLength;
  }
}

/**
 * `upgrade`: the request arrived as the server's 'upgrade' event, `res` writes on its raw socket
 * (answers that do not switch protocols, then the connection ends, as no parser reads it any more).
 */
export function h1Exchange(req: IncomingMessage, res: ServerResponse, o: ExchangeOptions, upgrade?: { socket: Duplex; head: Buffer }): Exchange {
  return new H1Exchange(req, res, o, upgrade);
}

/** The exchange's close callbacks, run once when the response closes (one listener per response, however many ask). */
type CloseCallbacks = (() => void) | (() => void)[] | undefined;

/** The callbacks with `cb` added: one function alone, an array once there are two. */
function withCallback(cbs: CloseCallbacks, cb: () => void): CloseCallbacks {
  return cbs === undefined ? cb : typeof cbs === "function" ? [cbs, cb] : (cbs.push(cb), cbs);
}

function callAll(cbs: CloseCallbacks | null): void {
  if (typeof cbs === "function") cbs();
  else if (cbs) for (const cb of cbs) cb();
}

// A class for the reason H2Exchange is one: an object literal of ~25 closures and getters was
// built per request (and went to dictionary mode: its accessors are defined one by one).
class H1Exchange implements Exchange {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly url: string;
  readonly headers: Headers;
  readonly rawHeaders: string[];
  readonly socket: TLSSocket;
  readonly httpVersion: string;
  readonly responseEncoding: "gzip" | undefined;
  readonly upgrade: UpgradeConnection | undefined;
  private isClosed = false;
  private written = 0;
  private switched = false;
  private closeCallbacks: CloseCallbacks = undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    o: ExchangeOptions,
    upgrade: { socket: Duplex; head: Buffer } | undefined,
  ) {
    const url = req.url ?? "/";
    const { path, query } = splitUrl(url);
    this.method = req.method ?? "GET";
    this.path = path;
    this.query = query;
    this.url = url;
    this.headers = req.headers as IncomingHttpHeaders as Headers;
    this.rawHeaders = req.rawHeaders;
    this.socket = req.socket as TLSSocket;
    this.httpVersion = req.httpVersion;
    this.responseEncoding = responseEncoding(this.headers, o);
    this.upgrade = upgrade && {
      takeOver: () => {
        if (this.switched) throw new Error("the upgraded connection was already taken over");
        // The response stays attached to the socket only to report its close (the exchange's
        // onClose); it writes nothing more.
        this.switched = true;
        return upgrade;
      },
    };
    res.once("close", () => this.responseClosed());
  }

  private responseClosed(): void {
    this.isClosed = true;
    const cbs = this.closeCallbacks;
    this.closeCallbacks = undefined;
    callAll(cbs);
  }

  closeConnection(): void {
    if (!this.res.headersSent) this.res.setHeader("connection", "close");
  }
  body(limit: number): Promise<Buffer> {
    return readBody(this.req, this.req.headers["content-length"], limit);
  }
  requestStream(): Readable {
    return this.req;
  }
  head(status: number, h: Record<string, string | number | string[]>): void {
    this.res.writeHead(status, h);
  }
  setResponseHeader(name: string, value: string): void {
    this.res.setHeader(name, value);
  }
  get status(): number {
    return this.switched ? 101 : this.res.headersSent ? this.res.statusCode : 0;
  }
  get bytesWritten(): number {
    return this.written;
  }
  write(chunk: Buffer | string): boolean {
    this.written += byteLength(chunk);
    return this.res.write(chunk);
  }
  cork(): void {
    this.res.cork();
  }
  uncork(): void {
    this.res.uncork();
  }
  end(chunk?: Buffer | string): void {
    if (this.switched) return;
    if (chunk !== undefined) {
      this.written += byteLength(chunk);
      this.res.end(chunk);
    } else this.res.end();
  }
  abort(): void {
    this.res.destroy();
  }
  get headersSent(): boolean {
    return this.switched || this.res.headersSent;
  }
  get closed(): boolean {
    return this.isClosed || this.res.destroyed;
  }
  onClose(cb: () => void): void {
    // As `res.once("close", cb)` would: a callback given after the close is never called.
    if (this.isClosed) return;
    const cbs = this.closeCallbacks;
    this.closeCallbacks = withCallback(cbs, cb);
  }
  drained(): Promise<void> {
    const res = this.res;
    return new Promise((r) => (res.writableNeedDrain ? res.once("drain", () => r()) : r()));
  }
  pending(): number {
    return this.res.writableLength + (this.req.socket.writableLength ?? 0);
  }
}

const byteLength = (chunk: Buffer | string) => (typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length);

export function header(h: Headers, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v.join(", ") : v;
}
