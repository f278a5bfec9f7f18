// An exchange that can be told to go quiet: once the deadline filter has answered 504, the
// handler may still be running (it cannot be stopped from outside, only asked to via the
// signal). Its later writes must not reach the client's already-finished response — on
// HTTP/1.1 a write after end is an 'error' event nobody listens for.
// A class rather than a proxy object: one is made for nearly every request.
import type { TLSSocket } from "node:tls";
import type { Exchange, Headers } from "./exchange.js";

export class QuietableExchange implements Exchange {
  private isQuiet = false;

  constructor(private readonly inner: Exchange) {}

  /** From now on head/write/end/abort do nothing and the exchange reads as closed. */
  quiet(): void {
    this.isQuiet = true;
  }

  get method(): string {
    return this.inner.method;
  }
  get path(): string {
    return this.inner.path;
  }
  get query(): URLSearchParams {
    return this.inner.query;
  }
  get headers(): Headers {
    return this.inner.headers;
  }
  get rawHeaders(): string[] | undefined {
    return this.inner.rawHeaders;
  }
  get socket(): TLSSocket {
    return this.inner.socket;
  }
  get responseEncoding(): "gzip" | undefined {
    return this.inner.responseEncoding;
  }
  get headersSent(): boolean {
    return this.inner.headersSent;
  }
  get status(): number {
    return this.inner.status;
  }
  get closed(): boolean {
    return this.isQuiet || this.inner.closed;
  }
  body(limit: number): Promise<Buffer> {
    return this.inner.body(limit);
  }
  head(status: number, headers: Record<string, string | number | string[]>): void {
    if (!this.isQuiet) this.inner.head(status, headers);
  }
  write(chunk: Buffer | string): boolean {
    return this.isQuiet ? true : this.inner.write(chunk);
  }
  end(chunk?: Buffer | string): void {
    if (!this.isQuiet) this.inner.end(chunk);
  }
  abort(): void {
    if (!this.isQuiet) this.inner.abort();
  }
  onClose(cb: () => void): void {
    this.inner.onClose(cb);
  }
  drained(): Promise<void> {
    return this.inner.drained();
  }
  pending(): number {
    return this.inner.pending();
  }
}
