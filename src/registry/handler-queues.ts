// An informer's handlers, each with its own queue of notifications (upstream: client-go's
// processorListener), drained on the event loop in batches. A handler added late starts with
// the current objects and so cannot receive a change twice; a slow or throwing handler delays
// or loses nothing for the others.
import type { InformerHandler } from "./informer.js";

export type Notification<O> =
  | { kind: "added"; obj: O }
  | { kind: "updated"; old: O; obj: O }
  | { kind: "deleted"; obj: O }
  /** Marks the end of the initial list in a listener's queue. */
  | { kind: "listed" };

interface Listener<O> {
  handler: InformerHandler<O>;
  queue: Notification<O>[];
  next: number;
}

/** Notifications handled per listener and turn of the event loop before yielding to requests. */
const batchSize = 500;

export class HandlerQueues<O> {
  private readonly listeners = new Set<Listener<O>>();
  /** Listeners that have still to get the initial list. */
  private readonly listing = new Set<Listener<O>>();
  private waitingForListing = false;
  private draining = false;
  private closed = false;
  /** Told once every notification queued so far has been handed to its handler. */
  private drainedWaiters: (() => void)[] = [];

  constructor(
    /** Every handler registered before listed() has had the initial list. */
    private readonly allListed: () => void,
    private readonly onHandlerError: (err: unknown) => void = () => undefined,
  ) {}

  /** Registers `h`; it first gets `added` for each of `current`. Returns the remover. */
  add(h: InformerHandler<O>, current: Iterable<O>): () => void {
    const l: Listener<O> = { handler: h, queue: [], next: 0 };
    this.listeners.add(l);
    for (const obj of current) l.queue.push({ kind: "added", obj });
    if (l.queue.length > 0) this.schedule();
    return () => {
      this.listeners.delete(l);
      if (this.listing.delete(l)) this.checkListed();
    };
  }

  notify(n: Notification<O>): void {
    if (this.closed || this.listeners.size === 0) return;
    for (const l of this.listeners) l.queue.push(n);
    this.schedule();
  }

  /** The initial list has been queued: call allListed() once every handler has had it. */
  listed(): void {
    this.waitingForListing = true;
    for (const l of this.listeners) {
      this.listing.add(l);
      l.queue.push({ kind: "listed" });
    }
    this.schedule();
    this.checkListed();
  }

  /** No more calls to any handler. */
  close(): void {
    this.closed = true;
    this.listeners.clear();
    this.listing.clear();
    this.wakeDrainedWaiters();
  }

  /**
   * Every notification queued has been handed to its handler (or the queues are closed): a change
   * the informer has seen but a handler has not yet is work still on its way to a controller.
   */
  idle(): boolean {
    if (this.closed) return true;
    for (const l of this.listeners) if (l.next < l.queue.length) return false;
    return true;
  }

  /** Resolves once idle() holds (at once when it does). */
  whenIdle(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((r) => this.drainedWaiters.push(r));
  }

  private wakeDrainedWaiters(): void {
    for (const w of this.drainedWaiters.splice(0)) w();
  }

  private schedule(): void {
    if (this.draining || this.closed) return;
    this.draining = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    let more = false;
    for (const l of this.listeners) {
      const end = Math.min(l.queue.length, l.next + batchSize);
      while (l.next < end && !this.closed && this.listeners.has(l)) this.dispatch(l, l.queue[l.next++]!);
      if (l.next < l.queue.length) more = true;
      else {
        l.queue = [];
        l.next = 0;
      }
    }
    this.draining = false;
    if (more) this.schedule();
    // A handler may have queued more for a listener already passed (a change it made in the view).
    else if (this.idle()) this.wakeDrainedWaiters();
    else this.schedule();
  }

  private dispatch(l: Listener<O>, n: Notification<O>): void {
    const h = l.handler;
    try {
      if (n.kind === "added") h.added?.(n.obj);
      else if (n.kind === "updated") h.updated?.(n.old, n.obj);
      else if (n.kind === "deleted") h.deleted?.(n.obj);
      else if (this.listing.delete(l)) this.checkListed();
    } catch (err) {
      this.onHandlerError(err);
    }
  }

  private checkListed(): void {
    if (!this.waitingForListing || this.listing.size > 0 || this.closed) return;
    this.waitingForListing = false;
    this.allListed();
  }
}
