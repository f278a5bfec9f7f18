// The exchange an audited request is served through (the audit stage's first part puts it in
// front of the one that arrived): the request's audit event learns the response's status and
// body, and records the final stage before the response is finished — so no answer reaches a
// client before its event is written (blocking modes). When that write is one shared by a turn's
// requests (the log's group commit), the head of a response that is not long-running is held
// until the body goes with it: sent apart, HTTP/2 would frame them in two writes to the
// connection.
import type { ResponseBody } from "../observability/audit/event-bodies.js";
import { DelegatingExchange } from "./delegating-exchange.js";
import type { Exchange } from "./exchange.js";

/** What sees the response of an audited request. */
export interface ResponseObserver {
  /** The head is about to be sent with `status`; true: hold it until the response ends. */
  started(status: number): boolean;
  body(body: ResponseBody): void;
  /** The response is about to end: a promise holds the end back until it settles. */
  finishing(): boolean | Promise<boolean>;
}

export class AuditedExchange extends DelegatingExchange {
  private held: { status: number; headers: Record<string, string | number | string[]> } | undefined;

  constructor(
    inner: Exchange,
    private readonly observer: ResponseObserver,
  ) {
    super(inner);
  }

  override get headersSent(): boolean {
    return this.held !== undefined || this.inner.headersSent;
  }

  override get status(): number {
    return this.held?.status ?? this.inner.status;
  }

  override observeResponse(body: ResponseBody): void {
    this.observer.body(body);
    this.inner.observeResponse?.(body);
  }

  override head(status: number, headers: Record<string, string | number | string[]>): void {
    if (this.observer.started(status)) this.held = { status, headers };
    else this.inner.head(status, headers);
  }

  override write(chunk: Buffer | string): boolean {
    this.release();
    return this.inner.write(chunk);
  }

  override end(chunk?: Buffer | string): void {
    const r = this.observer.finishing();
    if (typeof r === "boolean") return this.finish(chunk);
    void r.then(() => this.finish(chunk));
  }

  override abort(): void {
    this.held = undefined;
    this.inner.abort();
  }

  private finish(chunk?: Buffer | string): void {
    this.release();
    this.inner.end(chunk);
  }

  private release(): void {
    if (!this.held) return;
    const { status, headers } = this.held;
    this.held = undefined;
    this.inner.head(status, headers);
  }
}
