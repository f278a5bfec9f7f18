// Batch mode (upstream: plugin/pkg/audit/buffered): events wait in a bounded queue and go to the
// backend in batches of up to --audit-<b>-batch-max-size, at the latest --audit-<b>-batch-max-wait
// after the first of a batch was queued, at most --audit-<b>-batch-throttle-qps batches a second
// (bursts of -throttle-burst) when throttling is on. A full queue drops the event (counted as an
// error of the "buffered" plugin); the request never waits.
import type { AuditBackend, PluginErrors } from "./backend.js";
import type { AuditEventRecord } from "./event-record.js";

export interface BatchConfig {
  bufferSize: number;
  maxBatchSize: number;
  maxBatchWaitMs: number;
  throttleEnable: boolean;
  throttleQPS: number;
  throttleBurst: number;
  /** Send a batch without waiting for the previous one (webhook); else one at a time (log). */
  asyncDelegate: boolean;
}

const pluginName = "buffered";

export class BufferedBackend implements AuditBackend {
  readonly name: string;
  private queue: AuditEventRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private draining = false;
  /** The oldest queued event has waited --audit-<b>-batch-max-wait. */
  private flushDue = false;
  private drainScheduled = false;
  private stopped = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly bucket: TokenBucket | undefined;

  constructor(
    private readonly delegate: AuditBackend,
    private readonly c: BatchConfig,
    private readonly errors: PluginErrors,
  ) {
    this.name = `${pluginName}<${delegate.name}>`;
    if (c.throttleEnable) this.bucket = new TokenBucket(c.throttleQPS, c.throttleBurst);
  }

  processEvents(events: readonly AuditEventRecord[]): boolean {
    if (this.stopped) {
      this.errors(pluginName, new Error("audit backend shut down"), events);
      return true;
    }
    for (let i = 0; i < events.length; i++) {
      if (this.queue.length >= this.c.bufferSize) {
        this.errors(pluginName, new Error("audit buffer queue blocked"), events.slice(i));
        break;
      }
      this.queue.push(events[i]!);
    }
    if (this.queue.length >= this.c.maxBatchSize) this.scheduleDrain();
    else this.armTimer();
    return true;
  }

  /** Off the request's path: the batches go out after the current turn of the event loop. */
  private scheduleDrain(): void {
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    setImmediate(() => {
      this.drainScheduled = false;
      void this.drain();
    });
  }

  private armTimer(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flushDue = true;
      void this.drain();
    }, this.c.maxBatchWaitMs).unref();
  }

  /** Sends the full batches, and the partial one when its wait is over (or at shutdown). */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      for (;;) {
        let batch: AuditEventRecord[];
        if (this.queue.length >= this.c.maxBatchSize) batch = this.queue.splice(0, this.c.maxBatchSize);
        else if ((this.flushDue || this.stopped) && this.queue.length > 0) batch = this.queue.splice(0);
        else break;
        this.flushDue = false;
        if (this.bucket && !this.stopped) await this.bucket.take();
        this.send(batch);
        if (!this.c.asyncDelegate) await Promise.all(this.inFlight);
      }
    } finally {
      this.draining = false;
    }
    if (this.queue.length > 0 && !this.stopped) this.armTimer();
  }

  private send(batch: AuditEventRecord[]): void {
    let r: boolean | Promise<boolean>;
    try {
      r = this.delegate.processEvents(batch);
    } catch (e) {
      this.errors(this.delegate.name, e as Error, batch);
      return;
    }
    if (typeof r === "boolean") return;
    const p = r.catch(() => false).finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.draining) await new Promise((r) => setImmediate(r));
    await this.drain();
    await Promise.all(this.inFlight);
    await this.delegate.shutdown();
  }
}

/** client-go's token bucket rate limiter: `qps` tokens a second, at most `burst` saved up. */
class TokenBucket {
  private tokens: number;
  private last = performance.now();

  constructor(
    private readonly qps: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  async take(): Promise<void> {
    for (;;) {
      const now = performance.now();
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
      this.last = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await new Promise((r) => setTimeout(r, ((1 - this.tokens) / this.qps) * 1000));
    }
  }
}
