// The requests a queue (or a level without queues) has executing. A Set would do, but a request
// is a new object each time and putting one in a Set makes V8 give it an identity hash (a
// write to its property store) on the hot path of every request: here each request keeps its
// own slot instead, and leaving swaps the last one into it. Order is not kept (upstream's set
// of executing requests is a Go map, whose order is not either).

/** What the set keeps on each member: where it is. */
export interface Slotted {
  executingSlot: number;
}

export class ExecutingSet<T extends Slotted> implements Iterable<T> {
  private readonly items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  add(item: T): void {
    item.executingSlot = this.items.length;
    this.items.push(item);
  }

  /** Takes `item` out; false when it was not in. */
  delete(item: T): boolean {
    const at = item.executingSlot;
    if (at < 0 || this.items[at] !== item) return false;
    const last = this.items.pop()!;
    if (last !== item) {
      this.items[at] = last;
      last.executingSlot = at;
    }
    item.executingSlot = -1;
    return true;
  }

  [Symbol.iterator](): Iterator<T> {
    return this.items[Symbol.iterator]();
  }
}
