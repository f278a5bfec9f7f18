// The waiting requests of one queue, oldest first, with running sums of their seats and work
// (upstream: queueset's requestFIFO). A request leaving early (its wait timed out) is unlinked
// in constant time.
export interface QueuedWork {
  initialSeats: number;
  maxSeats: number;
  totalWork: number;
}

interface Node<T> {
  value: T;
  prev: Node<T> | undefined;
  next: Node<T> | undefined;
  removed: boolean;
}

export class RequestFifo<T extends QueuedWork> {
  private head: Node<T> | undefined;
  private tail: Node<T> | undefined;
  length = 0;
  initialSeatsSum = 0;
  maxSeatsSum = 0;
  totalWorkSum = 0;

  /** Adds at the back; the returned function takes it out again (undefined once it is gone). */
  enqueue(value: T): () => T | undefined {
    const node: Node<T> = { value, prev: this.tail, next: undefined, removed: false };
    if (this.tail) this.tail.next = node;
    else this.head = node;
    this.tail = node;
    this.length++;
    this.add(value, 1);
    return () => {
      if (node.removed) return undefined;
      this.unlink(node);
      return value;
    };
  }

  peek(): T | undefined {
    return this.head?.value;
  }

  /** The waiting values, oldest first. */
  *values(): IterableIterator<T> {
    for (let n = this.head; n; n = n.next) yield n.value;
  }

  private unlink(node: Node<T>): void {
    node.removed = true;
    if (node.prev) node.prev.next = node.next;
    else this.head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.tail = node.prev;
    this.length--;
    this.add(node.value, -1);
  }

  private add(v: T, sign: 1 | -1): void {
    this.initialSeatsSum += sign * v.initialSeats;
    this.maxSeatsSum += sign * v.maxSeats;
    this.totalWorkSum += sign * v.totalWork;
  }
}
