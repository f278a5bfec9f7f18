// The most requests of each kind (read-only, mutating) seen at once in about the last second:
// upstream's request watermarks, which its in-flight and in-queue gauges publish every second.
// Here the window turns over when a request arrives or the page is scraped: the published value
// is the larger of this window's peak and the previous one's (the previous one empty after a
// second with no arrival: only what is current counts then).
export type RequestKind = "readOnly" | "mutating";

export class KindWatermark {
  private readonly now = { readOnly: 0, mutating: 0 };
  private readonly maxThis = { readOnly: 0, mutating: 0 };
  private readonly maxPrevious = { readOnly: 0, mutating: 0 };
  private windowStart = 0;

  /** One more request of `kind` at `atMs` (performance.now()). */
  up(kind: RequestKind, atMs: number): void {
    this.rotate(atMs);
    const n = ++this.now[kind];
    if (n > this.maxThis[kind]) this.maxThis[kind] = n;
  }

  down(kind: RequestKind): void {
    this.now[kind]--;
  }

  /** The peak to publish now. */
  peak(kind: RequestKind, atMs: number): number {
    this.rotate(atMs);
    return Math.max(this.maxThis[kind], this.maxPrevious[kind]);
  }

  private rotate(atMs: number): void {
    if (atMs - this.windowStart < 1000) return;
    const idle = atMs - this.windowStart >= 2000;
    for (const k of ["readOnly", "mutating"] as const) {
      this.maxPrevious[k] = idle ? this.now[k] : this.maxThis[k];
      this.maxThis[k] = this.now[k];
    }
    this.windowStart = atMs;
  }
}
