// The keyed work queue every in-process controller drains: a key queued while it waits is queued
// once; keys are worked one at a time; a key can be queued again after a delay (one timer per
// key, the earliest wins).
export class KeyQueue {
  private readonly pending = new Set<string>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private working = false;
  private stopped = false;

  constructor(
    private readonly work: (key: string) => Promise<void>,
    private readonly onError: (key: string, err: unknown) => void = () => undefined,
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    this.pending.add(key);
    if (this.working) return;
    this.working = true;
    setImmediate(() => void this.drain());
  }

  /** Queues `key` after `ms` (longer waits are re-checked in steps setTimeout can hold). */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + ms;
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, Math.min(Math.max(ms, 0), 2 ** 31 - 1));
    timer.unref();
    this.timers.set(key, { at, timer });
  }

  private async drain(): Promise<void> {
    while (!this.stopped && this.pending.size > 0) {
      const key = this.pending.values().next().value as string;
      this.pending.delete(key);
      try {
        await this.work(key);
      } catch (e) {
        this.onError(key, e);
      }
    }
    this.working = false;
  }

  stop(): void {
    this.stopped = true;
    this.pending.clear();
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
