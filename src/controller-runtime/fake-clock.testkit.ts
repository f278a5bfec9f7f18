// A clock whose time moves only when a test says: the election's timing rules checked in
// milliseconds of test time, none of wall time.
import type { ElectionClock } from "./leader-election.js";

/** Enough turns of the event loop for a store round trip to finish. */
export async function settle(turns = 25): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((r) => setImmediate(r));
}

export class FakeClock implements ElectionClock {
  private readonly sleepers = new Set<{ at: number; wake(): void }>();

  constructor(private t = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const s = {
        at: this.t + ms,
        wake: () => {
          this.sleepers.delete(s);
          signal.removeEventListener("abort", s.wake);
          resolve();
        },
      };
      this.sleepers.add(s);
      signal.addEventListener("abort", s.wake);
    });
  }

  /** Moves time forward by ms, waking each sleeper at its time and letting what it starts finish. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await settle();
      const due = [...this.sleepers].filter((s) => s.at <= end).sort((a, b) => a.at - b.at);
      if (due.length === 0) break;
      this.t = Math.max(this.t, due[0]!.at);
      for (const s of due) if (s.at <= this.t) s.wake();
    }
    this.t = end;
    await settle();
  }
}
