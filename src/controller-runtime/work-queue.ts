// The keyed work queue under every controller (upstream: client-go's workqueue): a key queued
// while it waits is queued once; keys are worked one at a time, so a key queued again while it is
// being worked runs once more afterwards; a key can be queued after a delay (one timer per key, the
// earliest wins). It can say whether any work is queued or running (idle), for whoever waits for
// the controllers to settle.
import { nextTurn, Slice } from "./turns.js";

export class KeyQueue {
  private readonly pending = new Set<string>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout; retry: boolean }>();
  private readonly idleWaiters: (() => void)[] = [];
  private readonly retryWaiters: (() => void)[] = [];
  /** Keys whose backoff ended and whose retry is queued or running: still failed until it ends. */
  private readonly retriesUnderway = new Set<string>();
  private working = false;
  private stopped = false;

  constructor(
    private readonly work: (key: string) => Promise<void>,
    private readonly onError: (key: string, err: unknown) => void = () => undefined,
    /** Keys are held, not worked, until release() (a controller that waits for its informers). */
    private held = false,
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    this.pending.add(key);
    this.schedule();
  }

  /**
   * Queues `key` after `ms` (longer waits are re-checked in steps setTimeout can hold). `retry`
   * marks the wait as a failure's backoff: work not done yet, which whoever settles the
   * controllers waits for, unlike a re-examination scheduled ahead.
   */
  addAfter(key: string, ms: number, retry = false): void {
    if (this.stopped) return;
    const at = Date.now() + ms;
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) {
      existing.retry ||= retry;
      return;
    }
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      const fired = this.timers.get(key);
      this.timers.delete(key);
      if (fired?.retry && !this.stopped) this.retriesUnderway.add(key);
      this.add(key);
      if (fired?.retry) this.wakeRetryWaiters();
    }, Math.min(Math.max(ms, 0), 2 ** 31 - 1));
    timer.unref();
    this.timers.set(key, { at, timer, retry: retry || (existing?.retry ?? false) });
  }

  /**
   * The keys a failure left to retry: waiting out their backoff, or retried right now (a report
   * taken mid-retry still names the key, not only a busy queue).
   */
  retrying(): string[] {
    const keys = new Set(this.retriesUnderway);
    for (const [key, t] of this.timers) if (t.retry) keys.add(key);
    return [...keys];
  }

  /** Resolves when the next retry comes due (or the queue stops). */
  whenRetryDue(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((r) => this.retryWaiters.push(r));
  }

  private wakeRetryWaiters(): void {
    for (const r of this.retryWaiters.splice(0)) r();
  }

  /** Starts working the keys held since construction. */
  release(): void {
    this.held = false;
    this.schedule();
    if (this.idle()) this.wakeIdleWaiters();
  }

  /**
   * Released, and no key is queued or being worked (keys waiting out a delay do not count: a
   * retry's backoff or a re-examination hours ahead is not work at hand).
   */
  idle(): boolean {
    return this.stopped || (!this.held && !this.working && this.pending.size === 0);
  }

  /** Resolves the next time the queue is idle (at once when it is). */
  whenIdle(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** How many keys wait out a delay (a retry's backoff, a scheduled re-examination). */
  get delayed(): number {
    return this.timers.size;
  }

  private schedule(): void {
    if (this.working || this.held || this.stopped || this.pending.size === 0) return;
    this.working = true;
    void nextTurn().then(() => this.drain());
  }

  private async drain(): Promise<void> {
    // Keys are worked in slices, taking turns with the other workers (./turns.ts).
    const slice = new Slice();
    while (!this.stopped && this.pending.size > 0) {
      if (slice.spent()) await slice.yield();
      if (this.stopped || this.pending.size === 0) break;
      const key = this.pending.values().next().value as string;
      this.pending.delete(key);
      try {
        await this.work(key);
      } catch (e) {
        this.onError(key, e);
      }
      // A retry that failed again is back in `timers` with a new backoff.
      this.retriesUnderway.delete(key);
    }
    this.working = false;
    if (this.pending.size > 0) this.schedule(); // queued during the last yield
    else this.wakeIdleWaiters();
  }

  private wakeIdleWaiters(): void {
    for (const r of this.idleWaiters.splice(0)) r();
  }

  stop(): void {
    this.stopped = true;
    this.pending.clear();
    this.retriesUnderway.clear();
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.wakeIdleWaiters();
    this.wakeRetryWaiters();
  }
}
