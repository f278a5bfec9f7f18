// The Retry-After a 429 of a priority level says (upstream: flowcontrol/dropped_requests_tracker):
// one second at first; doubled (up to 32) while the level keeps refusing at least three requests
// per second of the current value, and brought down a second at a time once it refuses fewer.
const maxRetryAfter = 32;

interface UnixStat {
  unixTime: number;
  requests: number;
}

class DroppedStats {
  private history: UnixStat[] = [];
  private currentUnix = 0;
  private currentCount = 0;
  retryAfter = 1;
  private retryAfterUpdateUnix = 0;

  record(unixTime: number): void {
    if (this.currentUnix === unixTime) {
      this.currentCount++;
      return;
    }
    this.updateHistory(this.currentUnix, this.currentCount);
    this.currentUnix = unixTime;
    this.currentCount = 1;
    this.updateRetryAfter(unixTime);
  }

  private updateHistory(unixTime: number, count: number): void {
    this.history.push({ unixTime, requests: count });
    const maxHistory = Math.min(2 * this.retryAfter, maxRetryAfter);
    let start = 0;
    while (start < this.history.length && unixTime - this.history[start]!.unixTime > maxHistory) start++;
    if (start > 0) this.history = this.history.slice(start);
  }

  private updateRetryAfter(unixTime: number): void {
    let dropped = 0;
    for (let i = this.history.length - 1; i >= 0; i--) {
      const h = this.history[i]!;
      if (unixTime - h.unixTime > this.retryAfter) break;
      if (h.unixTime < unixTime) dropped += h.requests;
    }
    if (unixTime - this.retryAfterUpdateUnix >= this.retryAfter && dropped >= 3 * this.retryAfter) {
      this.retryAfter = Math.min(this.retryAfter * 2, maxRetryAfter);
      this.retryAfterUpdateUnix = unixTime;
      return;
    }
    if (dropped < this.retryAfter && this.retryAfter > 1) this.retryAfter--;
  }
}

export class DroppedRequestsTracker {
  private readonly levels = new Map<string, DroppedStats>();
  constructor(private readonly nowMs: () => number = Date.now) {}

  recordDropped(plName: string): void {
    let s = this.levels.get(plName);
    if (!s) this.levels.set(plName, (s = new DroppedStats()));
    s.record(Math.floor(this.nowMs() / 1000));
  }

  retryAfter(plName: string): number {
    return this.levels.get(plName)?.retryAfter ?? 1;
  }
}
