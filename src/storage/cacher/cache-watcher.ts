// One watch served by the cache. It walks its backlog (synthetic ADDED events for the initial
// state, or the history it resumes from), then live events, handing each to its sink as the
// event type this watcher sees (an object leaving the selector is DELETED, entering is ADDED).
//
// Backpressure: the sink says when its consumer is full; the watcher then holds live events in a
// queue of at most `maxQueued` references (the events themselves are shared with the history
// ring). A watcher whose queue overflows is ended — never allowed to buffer without bound.
import type { CacheEvent, CacheEventType, Delivery, Entry, EventDispatch, Predicate, WatchCacheObserver } from "./types.js";
import { BudgetedMemo } from "./memo-budget.js";

export interface WatchSink<O> {
  /** Deliver one event. Return false when the consumer cannot take more now; call resume() later. */
  send(d: Delivery<O>): boolean;
  /** The cache ended this watcher ("slow": its queue overflowed; "stopped": the cache stopped). */
  closed(reason: "slow" | "stopped"): void;
}

export interface WatcherStart<O> {
  /** Synthetic ADDED events for these entries (already sorted), filtered by the predicate. */
  initial?: readonly Entry<O>[];
  /** Send a BOOKMARK flagged initial-events-end at this revision after the initial entries. */
  initialEventsEndAt?: number;
  /** History to replay before live events. */
  replay?: CacheEvent<O>[];
  /** Live events at or below this revision are skipped (already covered by initial/replay). */
  startRevision: number;
  /** Told how many initial and replayed events were sent once they all were, and of an end for slowness. */
  observer?: Pick<WatchCacheObserver, "initEvents" | "terminatedWatcher">;
}

export class CacheWatcher<O> {
  private initial: readonly Entry<O>[];
  private initialIdx = 0;
  private endBookmark: number | undefined;
  private replay: readonly CacheEvent<O>[];
  private replayIdx = 0;
  private queue: CacheEvent<O>[] = [];
  private queueIdx = 0;
  private blocked = false;
  /**
   * Something besides live events is left to send (initial entries, the end bookmark, replayed
   * history or queued events). A flag, so that the check every event makes for every watcher reads
   * this object alone, not the four backlogs (issue 26: per-watcher memory touches are the cost of
   * a fan-out). Set with each backlog, cleared once a pump has sent them all.
   */
  private backlog: boolean;
  private pumping = false;
  private lastRevision: number;
  private readonly startRevision: number;
  private stopped = false;
  private lastBookmark = 0;
  /** Events sent from the initial state and the replayed history, until both are through; then undefined. */
  private initSent: number | undefined = 0;
  private readonly observer: WatcherStart<O>["observer"];
  /** Set by the index: removes this watcher from the cache. */
  detach: () => void = () => undefined;

  constructor(
    readonly pred: Predicate,
    private readonly sink: WatchSink<O>,
    readonly allowBookmarks: boolean,
    private readonly maxQueued: number,
    start: WatcherStart<O>,
  ) {
    this.initial = start.initial ?? none;
    this.endBookmark = start.initialEventsEndAt;
    this.replay = start.replay ?? none;
    this.backlog = this.initial.length > 0 || this.endBookmark !== undefined || this.replay.length > 0;
    this.lastRevision = start.startRevision;
    this.startRevision = start.startRevision;
    this.observer = start.observer;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Everything handed to the sink so far, nothing pending: a bookmark may be sent now. */
  get idle(): boolean {
    return !this.blocked && !this.backlog;
  }

  matches(e: Entry<O>): boolean {
    if (!e.key.startsWith(this.pred.prefix)) return false;
    return this.pred.matches ? this.pred.matches(e) : true;
  }

  /** Called by the cache for every event this watcher might care about, in revision order. */
  push(ev: CacheEvent<O>): void {
    // Events of one revision (an etcd transaction's writes) come one after another: only those
    // the start covered, or older than one already sent, are skipped.
    if (this.stopped || ev.revision <= this.startRevision || ev.revision < this.lastRevision) return;
    if (this.idle) {
      this.lastRevision = ev.revision;
      this.deliverEvent(ev);
      return;
    }
    if (this.queue.length - this.queueIdx >= this.maxQueued) {
      this.observer?.terminatedWatcher();
      this.end("slow");
      return;
    }
    this.lastRevision = ev.revision;
    this.queue.push(ev);
    this.backlog = true;
  }

  /** Periodic progress: tell the client everything up to `revision` was sent. */
  bookmark(revision: number, memo: Map<string, unknown>): void {
    if (this.stopped || !this.allowBookmarks || !this.idle || revision <= this.lastBookmark) return;
    if (revision < this.lastRevision) return;
    this.lastBookmark = revision;
    if (!this.sink.send({ type: "BOOKMARK", revision, memo })) this.blocked = true;
  }

  /** Start delivering the backlog; also called by the sink when its consumer drained. */
  resume(): void {
    this.blocked = false;
    this.pump();
  }

  /** End from the cache's side: stop and tell the sink why. */
  end(reason: "slow" | "stopped"): void {
    if (this.stopped) return;
    this.stop();
    this.sink.closed(reason);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.initial = none;
    this.replay = none;
    this.queue = [];
    this.backlog = false;
    this.detach();
  }

  private pump(): void {
    if (this.pumping) return; // a send() that synchronously calls resume() must not recurse
    this.pumping = true;
    try {
      while (!this.blocked && !this.stopped) {
        if (this.initialIdx < this.initial.length) {
          const e = this.initial[this.initialIdx++]!;
          if (this.matches(e)) this.emit(new InitialDelivery(e));
        } else if (this.endBookmark !== undefined) {
          const rev = this.endBookmark;
          this.endBookmark = undefined;
          this.lastBookmark = rev;
          this.emit({ type: "BOOKMARK", revision: rev, memo: new Map(), initialEventsEnd: true });
        } else if (this.replayIdx < this.replay.length) {
          // Sent from the history by this watcher alone: what it made for the event goes with it.
          const ev = this.replay[this.replayIdx++]!;
          this.deliverEvent(ev);
          dispatched(ev);
        } else if (this.queueIdx < this.queue.length) {
          this.initDone();
          const ev = this.queue[this.queueIdx++]!;
          this.deliverEvent(ev);
          dispatched(ev);
          if (this.queueIdx === this.queue.length) {
            this.queue = [];
            this.queueIdx = 0;
          }
        } else break;
      }
      if (this.initialIdx >= this.initial.length && this.replayIdx >= this.replay.length) this.initDone();
      if (this.initialIdx >= this.initial.length && this.initial.length > 0) this.initial = none;
      if (this.replayIdx >= this.replay.length && this.replay.length > 0) {
        this.replay = none;
        this.replayIdx = 0;
      }
    } finally {
      this.backlog = this.initialIdx < this.initial.length || this.endBookmark !== undefined || this.replayIdx < this.replay.length || this.queueIdx < this.queue.length;
      this.pumping = false;
    }
  }

  /** The initial and replayed events are all sent: their count is told, once. */
  private initDone(): void {
    if (this.initSent === undefined) return;
    if (this.initSent > 0) this.observer?.initEvents(this.initSent);
    this.initSent = undefined;
  }

  private emit(d: Delivery<O>): void {
    if (this.initSent !== undefined && d.type !== "BOOKMARK") this.initSent++;
    if (!this.sink.send(d)) this.blocked = true;
  }

  /** Translate a cache event into what this watcher sees (or nothing). */
  private deliverEvent(ev: CacheEvent<O>): void {
    const d = (ev.dispatch ??= newDispatch());
    let curPasses: boolean;
    let prevPasses: boolean;
    if (d.matchedBy === this.pred) {
      curPasses = d.curPasses;
      prevPasses = d.prevPasses;
    } else {
      curPasses = ev.type !== "DELETED" && this.matches(ev.cur);
      prevPasses = ev.prev ? this.matches(ev.prev) : ev.type === "DELETED" && this.matches(ev.cur);
      d.matchedBy = this.pred;
      d.curPasses = curPasses;
      d.prevPasses = prevPasses;
    }
    if (curPasses && !prevPasses) this.emit(shared(ev, d, "A"));
    else if (curPasses && prevPasses) this.emit(shared(ev, d, "M"));
    else if (!curPasses && prevPasses) {
      // A deletion sends the last state; leaving the selector sends the previous object stamped
      // with this event's revision (as upstream).
      this.emit(shared(ev, d, ev.type === "DELETED" ? "D" : "L"));
    }
  }
}

/** Every watcher's backlog once sent (one array, not one per watcher). */
const none: readonly never[] = [];

// Deliveries find their byte memo only when a sink encodes: in-process sinks (informers) never
// do, and a Map per event would otherwise stay in the history ring with it.

type Variant = "A" | "M" | "D" | "L";

function newDispatch<O>(): EventDispatch<O> {
  return { deliveryA: undefined, deliveryM: undefined, deliveryD: undefined, deliveryL: undefined, matchedBy: undefined, curPasses: false, prevPasses: false };
}

function shared<O>(ev: CacheEvent<O>, d: EventDispatch<O>, v: Variant): Delivery<O> {
  switch (v) {
    case "A":
      return (d.deliveryA ??= new EventDelivery("ADDED", ev.cur, ev));
    case "M":
      return (d.deliveryM ??= new EventDelivery("MODIFIED", ev.cur, ev));
    case "D":
      return (d.deliveryD ??= new EventDelivery("DELETED", ev.cur, ev));
    case "L":
      return (d.deliveryL ??= new EventDelivery("DELETED", ev.prev!, ev));
  }
}

/**
 * The cache has handed `ev` to every watcher: what they shared goes, unless a delivery holds
 * encoded bytes (an HTTP watcher's), which a watcher still behind or one resuming from the
 * history sends again without encoding. Whoever sends it later makes the rest again.
 */
export function dispatched<O>(ev: CacheEvent<O>): void {
  const d = ev.dispatch;
  if (d && !(encoded(d.deliveryA) || encoded(d.deliveryM) || encoded(d.deliveryD) || encoded(d.deliveryL))) ev.dispatch = undefined;
}

function encoded<O>(d: Delivery<O> | undefined): boolean {
  return d instanceof EventDelivery && d.holdsBytes;
}

class EventDelivery<O> implements Delivery<O> {
  readonly revision: number;
  private bytes: Map<string, unknown> | undefined;
  constructor(
    readonly type: CacheEventType,
    readonly entry: Entry<O>,
    private readonly ev: CacheEvent<O>,
  ) {
    this.revision = ev.revision;
  }
  get prev(): Entry<O> | undefined {
    return this.ev.prev;
  }
  get memo(): Map<string, unknown> {
    return (this.bytes ??= new Map());
  }
  /** A sink kept encoded bytes in its memo. */
  get holdsBytes(): boolean {
    return this.bytes !== undefined && this.bytes.size > 0;
  }
}

class InitialDelivery<O> implements Delivery<O> {
  readonly type = "ADDED";
  readonly revision: number;
  constructor(readonly entry: Entry<O>) {
    this.revision = entry.modRevision;
  }
  get memo(): Map<string, unknown> {
    return sub(this.entry.memo, "ADDED");
  }
}

function sub(m: Map<string, unknown>, k: string): Map<string, unknown> {
  let s = m.get(k) as Map<string, unknown> | undefined;
  if (!s) m.set(k, (s = new BudgetedMemo()));
  return s;
}
