// The cache's side of one WATCH response: the state every event reads, in one object with its
// methods on the prototype. A fan-out hands each event to every watcher in turn, and what it costs
// per watcher is mostly the memory it touches (issue 26): a handful of closures, each its own
// function object and context, cost more than the writing they wrapped. The common case — JSON
// or another encoding memoised per delivery, no conversion, no table, no test tap — runs here
// alone; the others go through `special`, which the handler supplies.
import type { KObject } from "../apimachinery/object.js";
import type { Exchange } from "../http/exchange.js";
import type { WatchEventSeries } from "../observability/watch-metrics.js";
import type { ActiveWatch, ObjectWatchSink } from "../registry/watch.js";
import type { Delivery } from "../storage/cacher/types.js";

export class ResponseSink implements ObjectWatchSink {
  ended = false;
  /** A write returned false: the response is told to resume the watcher once it drains. */
  waitingForDrain = false;
  /** Events still being converted (webhook-converted types): the watcher resumes when none are. */
  pending = 0;
  /** The resourceVersion of the last event sent (a tap's closing bookmark carries it). */
  lastRevision: number;
  active: ActiveWatch | undefined;
  /** Set by the handler: the rare paths (table rows, conversion, a test tap), or undefined. */
  special: ((d: Delivery<KObject>) => boolean) | undefined;

  constructor(
    private readonly ex: Exchange,
    /** The delivery memo's key for this response's bytes (interned: one string for every watch). */
    private readonly memoKey: string,
    private readonly sent: WatchEventSeries | undefined,
    /** Encodes a delivery the first time any watch with this memo key needs its bytes. */
    private readonly encode: (d: Delivery<KObject>) => Buffer,
    /** A watch list's initial events are all sent (its latency metric), when this is one. */
    private readonly initialEventsSent: (() => void) | undefined,
    readonly closed: (reason: "slow" | "stopped") => void,
    startRevision: number,
  ) {
    this.lastRevision = startRevision;
  }

  send(d: Delivery<KObject>): boolean {
    if (this.ended) return true;
    if (this.special) return this.special(d);
    let b = d.memo.get(this.memoKey) as Buffer | undefined;
    if (!b) {
      b = this.encode(d);
      d.memo.set(this.memoKey, b);
    }
    return this.sendBytes(d, b);
  }

  /** Writes one delivery's bytes, counted in the watch metrics (once per watcher, as upstream). */
  sendBytes(d: Delivery<KObject>, bytes: Buffer): boolean {
    const ok = this.write(bytes);
    if (d.initialEventsEnd) this.initialEventsSent?.();
    this.lastRevision = d.revision;
    return ok;
  }

  private write(bytes: Buffer): boolean {
    const sent = this.sent;
    if (sent) {
      sent.count.inc();
      sent.sizes.observe(bytes.length);
    }
    const ok = this.ex.write(bytes);
    if (ok || this.waitingForDrain) return ok;
    this.waitingForDrain = true;
    void this.ex.drained().then(() => {
      this.waitingForDrain = false;
      if (!this.ended && this.pending === 0) this.active?.resume();
    });
    return false;
  }
}
