// An exchange that hands everything to another one: the base of the exchanges a filter puts in
// front of the one that arrived, for the stages after it (one that can go quiet). A class rather
// than a proxy object: one is made for nearly every request.
import type { Readable } from "node:stream";
import type { TLSSocket } from "node:tls";
import type { ResponseBody } from "../observability/audit/event-bodies.js";
import type { Exchange, Headers, UpgradeConnection } from "./exchange.js";

export class DelegatingExchange implements Exchange {
  constructor(protected readonly inner: Exchange) {}

  get method(): string {
    return this.inner.method;
  }
  get path(): string {
    return this.inner.path;
  }
  get query(): URLSearchParams {
    return this.inner.query;
  }
  get url(): string | undefined {
    return this.inner.url;
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
  get httpVersion(): string {
    return this.inner.httpVersion;
  }
  closeConnection(): void {
    this.inner.closeConnection();
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
  get bytesWritten(): number {
    return this.inner.bytesWritten;
  }
  get closed(): boolean {
    return this.inner.closed;
  }
  body(limit: number): Promise<Buffer> {
    return this.inner.body(limit);
  }
  get requestStream(): (() => Readable) | undefined {
    return this.inner.requestStream && (() => this.inner.requestStream!());
  }
  get upgrade(): UpgradeConnection | undefined {
    return this.inner.upgrade;
  }
  observeResponse(body: ResponseBody): void {
    this.inner.observeResponse?.(body);
  }
  head(status: number, headers: Record<string, string | number | string[]>): void {
    this.inner.head(status, headers);
  }
  setResponseHeader(name: string, value: string, unique?: boolean): void {
    this.inner.setResponseHeader(name, value, unique);
  }
  write(chunk: Buffer | string): boolean {
    return this.inner.write(chunk);
  }
  cork(): void {
    this.inner.cork?.();
  }
  uncork(): void {
    this.inner.uncork?.();
  }
  end(chunk?: Buffer | string): void {
    this.inner.end(chunk);
  }
  abort(): void {
    this.inner.abort();
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
