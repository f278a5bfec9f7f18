// A time-weighted record of one value (a priority level's seat demand) between resets: its
// average, standard deviation and extremes (upstream: fairqueuing.Integrator).
export interface IntegratorResults {
  /** Seconds covered. */
  duration: number;
  average: number;
  deviation: number;
  min: number;
  max: number;
}

export class Integrator {
  private x = 0;
  private lastTime: number;
  private elapsed = 0;
  private integralX = 0;
  private integralXX = 0;
  private min = 0;
  private max = 0;

  constructor(private readonly now: () => number) {
    this.lastTime = now();
  }

  /** `now`: the time of the change when the caller has read the clock already. */
  set(x: number, now = this.now()): void {
    this.update(now);
    this.x = x;
    if (x < this.min) this.min = x;
    if (x > this.max) this.max = x;
  }

  private update(t = this.now()): void {
    const dt = (t - this.lastTime) / 1000;
    this.lastTime = t;
    if (dt <= 0) return;
    this.elapsed += dt;
    this.integralX += this.x * dt;
    this.integralXX += this.x * this.x * dt;
  }

  /** The results since the last reset; starts a new period at the current value. */
  reset(): IntegratorResults {
    this.update();
    let average = NaN;
    let deviation = NaN;
    if (this.elapsed > 0) {
      average = this.integralX / this.elapsed;
      const variance = this.integralXX / this.elapsed - average * average;
      if (variance >= 0) deviation = Math.sqrt(variance);
    }
    const results = { duration: this.elapsed, average, deviation, min: this.min, max: this.max };
    this.elapsed = this.integralX = this.integralXX = 0;
    this.min = this.max = this.x;
    return results;
  }
}
