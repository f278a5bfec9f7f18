// component-base's timing ratio histograms (flowcontrol's TimingRatioHistogramVec over
// prometheusextension's TimingHistogram): a gauge of numerator / denominator whose value is
// observed "at the end of every nanosecond", so each bucket holds the nanoseconds the ratio
// spent at or below its bound, the count all nanoseconds seen and the sum the ratio times its
// nanoseconds. Updating costs one bucket search; time is credited to the value it replaces.
// HELP reads "EXPERIMENTAL: [ALPHA] ..." as upstream's wrapper writes it.
import { Family, goFloat, type FamilyOptions } from "./metric-family.js";

export const nowNs = () => performance.now() * 1e6;

export class TimingRatioCell {
  /** Nanoseconds per bucket (not cumulative); the last counts what lies above the highest bound. */
  readonly weights: Float64Array;
  sum = 0;
  count = 0;
  private numerator = 0;
  private denominator = 1;
  private since = nowNs();

  constructor(private readonly bounds: readonly number[]) {
    this.weights = new Float64Array(bounds.length + 1);
  }

  /** `now`: the time of the change (nowNs()) when the caller sets several cells at once. */
  set(numerator: number, now?: number): void {
    // Unchanged, the time since is credited to the same ratio later: nothing to do now.
    if (numerator === this.numerator) return;
    this.advance(now);
    this.numerator = numerator;
  }

  /** `now`: as set's. */
  add(delta: number, now?: number): void {
    this.advance(now);
    this.numerator += delta;
  }

  setDenominator(denominator: number): void {
    this.advance();
    this.denominator = denominator;
  }

  /** Credits the time since the last change to the ratio held through it. */
  advance(now = nowNs()): void {
    const ns = Math.round(now - this.since);
    if (ns <= 0) return;
    this.since = now;
    const ratio = this.numerator / this.denominator;
    const b = this.bounds;
    let i = 0;
    while (i < b.length && ratio > b[i]!) i++;
    this.weights[i]! += ns;
    this.sum += ratio * ns;
    this.count += ns;
  }
}

export class TimingRatioHistogramFamily extends Family<TimingRatioCell> {
  private readonly leText: readonly string[];
  constructor(o: FamilyOptions & { buckets: readonly number[] }) {
    const buckets = [...o.buckets];
    super("histogram", o, () => new TimingRatioCell(buckets));
    this.leText = [...buckets.map(goFloat), "+Inf"];
  }

  override annotatedHelp(): string {
    return `EXPERIMENTAL: ${super.annotatedHelp()}`;
  }

  protected renderCell(out: string[], labels: string, c: TimingRatioCell): void {
    c.advance();
    this.histogramLines(out, labels, this.leText, c.weights, c.sum, c.count);
  }
}
