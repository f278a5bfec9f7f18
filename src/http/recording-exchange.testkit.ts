// Test double: an exchange with no socket that records what was written to it, for unit tests
// of filters and handlers.
import type { TLSSocket } from "node:tls";
import type { UserInfo } from "../apimachinery/user.js";
import { newRequestContext, type RequestContext } from "./context.js";
import type { Exchange, Headers } from "./exchange.js";
import { parseRequestInfo } from "./request-info.js";

export interface RecordingOptions {
  method?: string;
  path?: string;
  /** Query string without "?". */
  query?: string;
  headers?: Headers;
  socket?: Partial<TLSSocket>;
  body?: Buffer | string;
  /** Default "2". */
  httpVersion?: string;
}

export class RecordingExchange {
  status = 0;
  headers: Record<string, string | number | string[]> = {};
  readonly chunks: Buffer[] = [];
  ended = false;
  aborted = false;
  closed = false;
  /** closeConnection() was called. */
  connectionClosed = false;
  private readonly closeListeners: (() => void)[] = [];
  readonly ex: Exchange;

  constructor(o: RecordingOptions = {}) {
    const rec = this;
    this.ex = {
      method: o.method ?? "GET",
      path: o.path ?? "/",
      query: new URLSearchParams(o.query ?? ""),
      headers: o.headers ?? {},
      socket: (o.socket ?? {}) as TLSSocket,
      httpVersion: o.httpVersion ?? "2",
      closeConnection() {
        rec.connectionClosed = true;
      },
      body: async () => Buffer.from(o.body ?? ""),
      head(status, headers) {
        if (rec.status !== 0) throw new Error("head() called twice");
        rec.status = status;
        rec.headers = { ...rec.headers, ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) };
      },
      setResponseHeader(name, value) {
        rec.headers[name.toLowerCase()] = value;
      },
      write(chunk) {
        rec.chunks.push(Buffer.from(chunk));
        return true;
      },
      end(chunk) {
        if (chunk !== undefined) rec.chunks.push(Buffer.from(chunk));
        rec.ended = true;
      },
      abort() {
        rec.aborted = true;
        rec.close();
      },
      get headersSent() {
        return rec.status !== 0;
      },
      get status() {
        return rec.status;
      },
      get bytesWritten() {
        return rec.chunks.reduce((n, c) => n + c.length, 0);
      },
      get closed() {
        return rec.closed;
      },
      onClose(cb) {
        rec.closeListeners.push(cb);
      },
      drained: async () => undefined,
      pending: () => 0,
    };
  }

  body(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }

  json(): any {
    return JSON.parse(this.body());
  }

  /** The stream closes (the client went away, or the response finished). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const cb of this.closeListeners.splice(0)) cb();
  }
}

export function recordingExchange(o: RecordingOptions = {}): RecordingExchange {
  return new RecordingExchange(o);
}

/** A request context over a recording exchange, with request info parsed from method and path. */
export function recordingContext(o: RecordingOptions & { user?: UserInfo; parse?: boolean } = {}): { rec: RecordingExchange; ctx: RequestContext } {
  const rec = new RecordingExchange(o);
  const ctx = newRequestContext(rec.ex);
  if (o.parse !== false) ctx.info = parseRequestInfo(rec.ex.method, rec.ex.path, rec.ex.query);
  ctx.user = o.user;
  return { rec, ctx };
}
