// The exchange an audited request is served through (the audit stage's first part puts it in
// front of the one that arrived): the request's audit event learns the response's status and
// body, and records the final stage before the response is finished — so no answer reaches a
// client before its event is written (blocking modes). When that write is one shared by a turn's
// requests (the log's group commit), the head of a response that is not long-running is held
// until the body goes with it: sent apart, HTTP/2 would frame them in two writes to the
// connection. A streamed body goes out as it is written but for its last chunk, held until the
// end's final stage is written: with a Content-Length, a client has the whole response once its
// last byte arrives, before the end itself. The head of a long-running response (a watch) waits for its ResponseStarted event
// when a backend must be waited for (a blocking webhook), as upstream's handler waits in
// WriteHeader: what the handler writes meanwhile is kept, in order, and goes after it.
import type { ResponseBody } from "../observability/audit/event-bodies.js";
import { DelegatingExchange } from "./delegating-exchange.js";
import type { Exchange } from "./exchange.js";

/** What sees the response of an audited request. */
export interface ResponseObserver {
  /**
   * The head is about to be sent with `status`; true: hold it until the response ends; a promise:
   * hold it, and everything written after it, until the promise settles.
   */
  started(status: number): boolean | Promise<unknown>;
  body(body: ResponseBody): void;
  /** The response is about to end: a promise holds the end back until it settles. */
  finishing(): boolean | Promise<boolean>;
}

export class AuditedExchange extends DelegatingExchange {
  private held: { status: number; headers: Record<string, string | number | string[]> } | undefined;
  /** While the head waits for a backend: what was written after it, in order (undefined when nothing waits). */
  private waiting: { write?: Buffer | string; end?: true; chunk?: Buffer | string; bytes: number }[] | undefined;
  private opened: Promise<void> | undefined;
  /** A response that is not long-running: its last chunk written, held until the end (undefined: none yet). */
  private tail: Buffer | string | undefined;
  private holdsTail = false;

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
    const r = this.observer.started(status);
    if (r === false) return this.inner.head(status, headers);
    this.held = { status, headers };
    if (r === true) {
      this.holdsTail = true;
      return;
    }
    this.waiting = [];
    this.opened = r.then(
      () => this.open(),
      () => this.open(),
    );
  }

  override write(chunk: Buffer | string): boolean {
    if (this.waiting) {
      this.waiting.push({ write: chunk, bytes: chunk.length });
      return false;
    }
    if (this.holdsTail) {
      const previous = this.tail;
      this.tail = chunk;
      if (previous === undefined) return true;
      chunk = previous;
    }
    this.release();
    return this.inner.write(chunk);
  }

  override drained(): Promise<void> {
    return this.opened ? this.opened.then(() => this.inner.drained()) : this.inner.drained();
  }

  override pending(): number {
    let n = this.inner.pending() + (this.tail?.length ?? 0);
    for (const w of this.waiting ?? []) n += w.bytes;
    return n;
  }

  override end(chunk?: Buffer | string): void {
    if (this.waiting) {
      this.waiting.push({ end: true, chunk, bytes: chunk?.length ?? 0 });
      return;
    }
    const r = this.observer.finishing();
    if (typeof r === "boolean") return this.finish(chunk);
    void r.then(() => this.finish(chunk));
  }

  override abort(): void {
    this.held = undefined;
    this.tail = undefined;
    this.waiting = undefined;
    this.inner.abort();
  }

  /** The backend took the ResponseStarted event (or failed to: the response goes on as upstream's does): the head and what waited go out. */
  private open(): void {
    const waited = this.waiting;
    this.waiting = undefined;
    this.opened = undefined;
    // Aborted meanwhile: nothing goes out.
    if (!waited) return;
    this.release();
    for (const w of waited) {
      if (w.end) return this.end(w.chunk);
      this.inner.write(w.write!);
    }
  }

  private finish(chunk?: Buffer | string): void {
    this.release();
    const tail = this.tail;
    this.tail = undefined;
    if (tail !== undefined) this.inner.write(tail);
    this.inner.end(chunk);
  }

  private release(): void {
    if (!this.held) return;
    const { status, headers } = this.held;
    this.held = undefined;
    this.inner.head(status, headers);
  }
}
