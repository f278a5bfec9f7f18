// An exchange that can be told to go quiet: once the deadline filter has answered 504, the
// handler may still be running (it cannot be stopped from outside, only asked to via the
// signal). Its later writes must not reach the client's already-finished response — on
// HTTP/1.1 a write after end is an 'error' event nobody listens for.
import type { ResponseBody } from "../observability/audit/event-bodies.js";
import { DelegatingExchange } from "./delegating-exchange.js";

export class QuietableExchange extends DelegatingExchange {
  private isQuiet = false;

  /** From now on head/write/end/abort do nothing and the exchange reads as closed. */
  quiet(): void {
    this.isQuiet = true;
  }

  override closeConnection(): void {
    if (!this.isQuiet) this.inner.closeConnection();
  }
  override get closed(): boolean {
    return this.isQuiet || this.inner.closed;
  }
  override observeResponse(body: ResponseBody): void {
    if (!this.isQuiet) this.inner.observeResponse?.(body);
  }
  override head(status: number, headers: Record<string, string | number | string[]>): void {
    if (!this.isQuiet) this.inner.head(status, headers);
  }
  override write(chunk: Buffer | string): boolean {
    return this.isQuiet ? true : this.inner.write(chunk);
  }
  override end(chunk?: Buffer | string): void {
    if (!this.isQuiet) this.inner.end(chunk);
  }
  override abort(): void {
    if (!this.isQuiet) this.inner.abort();
  }
}
