// Recent history of one cache: events in revision order, trimmed by age (the history window)
// and by count (a hard memory bound). `horizon` is the newest revision whose successors are all
// still here: a watch can resume from any revision >= horizon.
import type { CacheEvent } from "./types.js";

export class EventRing<O> {
  private events: CacheEvent<O>[] = [];
  private head = 0; // events before head are evicted (compacted lazily)

  constructor(
    private readonly windowMs: number,
    private readonly maxEvents: number,
    /** The revision the cache's state started at: nothing before it is known. */
    public horizon: number,
  ) {}

  get length(): number {
    return this.events.length - this.head;
  }

  push(ev: CacheEvent<O>): void {
    this.events.push(ev);
    if (this.length > this.maxEvents) this.evict(1);
  }

  /** Drop events recorded before now - window. */
  expire(now: number): void {
    let n = 0;
    const cutoff = now - this.windowMs;
    for (let i = this.head; i < this.events.length && this.events[i]!.time < cutoff; i++) n++;
    if (n > 0) this.evict(n);
  }

  /** Events with revision > after (a copy of the references: the caller may walk it later). */
  since(after: number): CacheEvent<O>[] {
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.revision <= after) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo);
  }

  /** True when some event has a revision in (from, to]. */
  anyBetween(from: number, to: number): boolean {
    for (let i = this.events.length - 1; i >= this.head; i--) {
      const r = this.events[i]!.revision;
      if (r <= from) return false;
      if (r <= to) return true;
    }
    return false;
  }

  private evict(n: number): void {
    this.horizon = this.events[this.head + n - 1]!.revision;
    for (let i = this.head; i < this.head + n; i++) (this.events as unknown[])[i] = undefined;
    this.head += n;
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }
}
