// Every watch's timeout on one timer. Each watch gets a random timeout (so watches begun together
// do not all end together), and Node keeps a TimersList per distinct duration: 10,000 watches
// held 10,000 Timeouts and as many lists, re-sorted on every start and end (issue 26). Here a
// deadline is a small heap entry; one unref'd timer is armed for the earliest one.

const maxDelay = 2 ** 31 - 1;

export interface Deadline {
  /** The watch ended first: its deadline will not fire. */
  cancel(): void;
}

class Entry implements Deadline {
  constructor(
    readonly at: number,
    public fire: (() => void) | undefined,
    private readonly owner: Deadlines,
  ) {}
  /** Out of the heap (due now): a cancel no longer leaves a dead entry behind. */
  taken = false;
  cancel(): void {
    if (!this.fire) return;
    this.fire = undefined;
    if (!this.taken) this.owner.cancelled();
  }
}

export class Deadlines {
  private readonly heap: Entry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private armedAt = Infinity;
  /** Cancelled entries still in the heap: dropped in bulk once they are half of it, so watches that come and go do not pile up for an hour. */
  private dead = 0;

  /** Calls fire in `ms` milliseconds unless cancelled first. */
  after(ms: number, fire: () => void): Deadline {
    const e = new Entry(Date.now() + ms, fire, this);
    this.push(e);
    if (e.at < this.armedAt) this.arm();
    return e;
  }

  /** Deadlines pending (cancelled ones not counted). */
  get size(): number {
    return this.heap.length - this.dead;
  }

  /** @internal from Entry.cancel */
  cancelled(): void {
    this.dead++;
    if (this.dead < 64 || this.dead * 2 < this.heap.length) return;
    // A sorted array is a heap.
    const live = this.heap.filter((e) => e.fire !== undefined).sort((a, b) => a.at - b.at);
    this.heap.length = 0;
    for (const e of live) this.heap.push(e);
    this.dead = 0;
    this.arm();
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Infinity;
    const top = this.heap[0];
    if (!top) return;
    this.armedAt = top.at;
    // Node fires a delay past 2^31-1 ms at once: a far deadline wakes at that bound and re-arms.
    this.timer = setTimeout(() => this.run(), Math.min(maxDelay, Math.max(0, top.at - Date.now())));
    this.timer.unref();
  }

  private run(): void {
    this.timer = undefined;
    this.armedAt = Infinity;
    const now = Date.now();
    const due: Entry[] = [];
    while (this.heap.length > 0 && this.heap[0]!.at <= now) {
      const e = this.pop();
      e.taken = true;
      if (e.fire) due.push(e);
      else this.dead--;
    }
    this.arm();
    for (const e of due) {
      const fire = e.fire;
      e.fire = undefined;
      fire?.();
    }
  }

  private push(e: Entry): void {
    const h = this.heap;
    let i = h.push(e) - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p]!.at <= e.at) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = e;
  }

  private pop(): Entry {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= h.length) break;
        const c = l + 1 < h.length && h[l + 1]!.at < h[l]!.at ? l + 1 : l;
        if (h[c]!.at >= last.at) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}
