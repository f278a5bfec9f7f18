// Latency samples in a flat typed array (no per-sample objects, so the client's GC stays quiet).
import type { LatencySummary } from "./protocol.js";

export class Latencies {
  private a = new Float64Array(1 << 16);
  private n = 0;
  private seen = 0;

  add(ms: number): void {
    this.seen++;
    if (this.n < this.a.length) this.a[this.n++] = ms;
    else if (this.a.length < 1 << 22) {
      const b = new Float64Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
      this.a[this.n++] = ms;
    } else {
      // Reservoir sampling past 4M samples keeps percentiles unbiased.
      const j = Math.floor(Math.random() * this.seen);
      if (j < this.a.length) this.a[j] = ms;
    }
  }

  summary(): LatencySummary {
    const s = this.a.slice(0, this.n).sort();
    const q = (p: number) => (s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : 0);
    let sum = 0;
    for (const v of s) sum += v;
    return { p50: q(0.5), p90: q(0.9), p99: q(0.99), max: s.length ? s[s.length - 1] : 0, mean: s.length ? sum / s.length : 0 };
  }
}
