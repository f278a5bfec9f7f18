// What a test hears as it arrives: the events of a client's informer or watch, the lines a server
// logs. Those run in the test's own process, past settle()'s reach, so a test waits on their
// arrival: each push wakes the waits, none polls.

export class Heard<T> {
  readonly items: T[] = [];
  private readonly waits = new Set<() => void>();
  private closed = false;

  /** Records `item` and wakes every wait. */
  push = (item: T): void => {
    this.items.push(item);
    this.wake();
  };

  /** Nothing more will come (the stream ended): a wait whose condition does not hold fails now. */
  close(): void {
    this.closed = true;
    this.wake();
  }

  /**
   * Resolves once `cond` holds over what has been heard (already, or as it arrives); rejects when
   * nothing more can come and it does not hold, or after `ms` (a bound for a broken test, not a wait).
   */
  until(what: string, cond: (items: readonly T[]) => boolean, ms = 10_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (e?: Error) => {
        this.waits.delete(look);
        clearTimeout(timer);
        if (e) reject(e);
        else resolve();
      };
      const look = () => {
        if (cond(this.items)) done();
        else if (this.closed) done(new Error(`${what}: it ended without it; heard ${JSON.stringify(this.items)}`));
      };
      const timer = setTimeout(() => done(new Error(`${what}: not heard within ${ms} ms; heard ${JSON.stringify(this.items)}`)), ms);
      this.waits.add(look);
      look();
    });
  }

  /** Until some item satisfies `pred`. */
  some(what: string, pred: (item: T) => boolean, ms?: number): Promise<void> {
    return this.until(what, (items) => items.some(pred), ms);
  }

  private wake(): void {
    for (const look of [...this.waits]) look();
  }
}
