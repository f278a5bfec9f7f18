// Fan-out of committed events to watchers. Backends call publish() from their commit path right
// after a commit (push, never poll). A watcher is registered in the same synchronous step that
// reads its replay, so no commit can fall between the two; each watcher still drops any event at
// or below the last revision it queued, so a gap or a duplicate is impossible by construction.
//
// Delivery is asynchronous (a microtask per watcher) so that onEvent never runs inside watch()
// itself or inside a backend's commit, and a throwing callback cannot break a commit.
import { StorageError, type WatchEvent, type Watcher } from "../interface.js";

interface Subscription {
  prefix: string;
  lastQueued: number;
  queue: WatchEvent[];
  terminal?: Error;
  scheduled: boolean;
  stopped: boolean;
  onEvent: (ev: WatchEvent) => void;
  onError?: (err: Error) => void;
}

export class WatchHub {
  private readonly subs = new Set<Subscription>();

  /** Register a watcher that first receives `replay` (already filtered, in revision order). */
  add(
    prefix: string,
    afterRevision: number,
    replay: WatchEvent[],
    onEvent: (ev: WatchEvent) => void,
    onError?: (err: Error) => void,
  ): Watcher {
    const sub: Subscription = {
      prefix,
      lastQueued: afterRevision,
      queue: [],
      scheduled: false,
      stopped: false,
      onEvent,
      onError,
    };
    this.subs.add(sub);
    this.enqueue(sub, replay);
    return {
      stop: () => {
        sub.stopped = true;
        sub.queue = [];
        this.subs.delete(sub);
      },
    };
  }

  /** Deliver newly committed events (in revision order) to every matching watcher. */
  publish(events: readonly WatchEvent[]): void {
    if (events.length === 0) return;
    for (const sub of this.subs) this.enqueue(sub, events);
  }

  /** End every watcher with `err` after the events already queued for it. */
  closeAll(err: Error = new StorageError("Closed", "", "storage closed")): void {
    for (const sub of this.subs) {
      sub.terminal = err;
      this.schedule(sub);
    }
    this.subs.clear();
  }

  get size(): number {
    return this.subs.size;
  }

  private enqueue(sub: Subscription, events: readonly WatchEvent[]): void {
    let added = false;
    for (const ev of events) {
      if (ev.revision <= sub.lastQueued || !ev.kv.key.startsWith(sub.prefix)) continue;
      sub.queue.push(ev);
      sub.lastQueued = ev.revision;
      added = true;
    }
    if (added) this.schedule(sub);
  }

  private schedule(sub: Subscription): void {
    if (sub.scheduled) return;
    sub.scheduled = true;
    queueMicrotask(() => this.drain(sub));
  }

  private drain(sub: Subscription): void {
    sub.scheduled = false;
    // Events published while draining are appended to the same array and delivered in this loop.
    const queue = sub.queue;
    let i = 0;
    try {
      for (; i < queue.length && !sub.stopped; i++) sub.onEvent(queue[i]!);
    } catch (err) {
      // A consumer that throws cannot be trusted to have seen the event: end it loudly.
      sub.stopped = true;
      this.subs.delete(sub);
      sub.queue = [];
      sub.onError?.(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    if (sub.queue === queue) sub.queue = [];
    if (sub.terminal && !sub.stopped) {
      sub.stopped = true;
      sub.onError?.(sub.terminal);
    }
  }
}
