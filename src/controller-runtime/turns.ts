// Controllers share the event loop with the requests the server answers. Storage often answers
// without real I/O (the memory store, the watch cache), so a worker's awaits alone never give the
// loop back: a burst of reconciles (every controller at start-up, a namespace's deletion) would
// hold a waiting request for as long as the burst lasts. Workers therefore work in slices of about
// a millisecond and take turns between them; one turn is given per event-loop iteration, so
// whatever I/O arrived (a connection, a request) is read between any two slices, however many
// workers are busy.

/** How long a worker may keep the loop before it waits for its next turn. */
export const sliceMs = 1;

const waiting: (() => void)[] = [];
let armed = false;

function giveTurn(): void {
  armed = false;
  const next = waiting.shift();
  // The next turn comes in the next iteration, after the loop has polled for I/O.
  if (waiting.length > 0) arm();
  next?.();
}

function arm(): void {
  if (armed) return;
  armed = true;
  setImmediate(giveTurn);
}

/** Resolves at this caller's next turn: after every worker that asked before it, one per loop iteration. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    arm();
  });
}

/** A worker's current slice: `spent()` says when it has had its share of the loop. */
export class Slice {
  private started = performance.now();

  spent(): boolean {
    return performance.now() - this.started >= sliceMs;
  }

  /** Waits for the next turn and starts a new slice there. */
  async yield(): Promise<void> {
    await nextTurn();
    this.started = performance.now();
  }
}
