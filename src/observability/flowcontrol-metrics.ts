// The apiserver_flowcontrol_* metrics of API Priority and Fairness (names, labels, buckets and
// stability as kube-apiserver 1.34 exports them), rendered as Prometheus text onto /metrics.
// They change on every request, so they are kept here as plain numbers: the request path pays a
// map lookup per (priority level, flow schema) pair — `series()` hands out the cells of a pair,
// kept — and the text is made only when scraped.
import type { ServerMetrics } from "./metrics.js";

/** One time series: its label values (in the family's label order) and value. */
export class Cell {
  value = 0;
  constructor(readonly labels: readonly string[]) {}
  add(d: number): void {
    this.value += d;
  }
  set(v: number): void {
    this.value = v;
  }
}

export class HistogramCell {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(
    readonly labels: readonly string[],
    private readonly buckets: readonly number[],
  ) {
    this.counts = new Array(buckets.length).fill(0);
  }
  observe(v: number): void {
    this.sum += v;
    this.count++;
    const b = this.buckets;
    for (let i = 0; i < b.length; i++) {
      if (v <= b[i]!) {
        this.counts[i]!++;
        return;
      }
    }
  }
}

type Stability = "ALPHA" | "BETA";

abstract class Family<C extends { labels: readonly string[] }> {
  protected readonly cells = new Map<string, C>();
  /** Label names sorted as the Prometheus client writes them, and where each comes from. */
  private readonly order: number[];
  constructor(
    readonly name: string,
    readonly help: string,
    readonly stability: Stability,
    readonly labelNames: readonly string[],
  ) {
    this.order = labelNames.map((_, i) => i).sort((a, b) => (labelNames[a]! < labelNames[b]! ? -1 : 1));
  }
  protected abstract make(values: readonly string[]): C;
  protected abstract readonly type: string;
  protected abstract lines(c: C, labels: string, out: string[]): void;
  cell(...values: string[]): C {
    const key = values.join("\u0000");
    let c = this.cells.get(key);
    if (!c) this.cells.set(key, (c = this.make(values)));
    return c;
  }
  /** Drops every series (a gauge whose label sets are recomputed as a whole). */
  clear(): void {
    this.cells.clear();
  }
  protected labelText(values: readonly string[], extra?: string): string {
    const parts = this.order.map((i) => `${this.labelNames[i]}="${escapeLabel(values[i]!)}"`);
    if (extra) parts.push(extra);
    return parts.length ? `{${parts.join(",")}}` : "";
  }
  render(out: string[]): void {
    if (this.cells.size === 0) return;
    out.push(`# HELP ${this.name} [${this.stability}] ${this.help}`, `# TYPE ${this.name} ${this.type}`);
    for (const c of this.cells.values()) this.lines(c, this.labelText(c.labels), out);
  }
}

class CounterFamily extends Family<Cell> {
  protected readonly type: string = "counter";
  protected make(values: readonly string[]): Cell {
    return new Cell(values);
  }
  protected lines(c: Cell, labels: string, out: string[]): void {
    out.push(`${this.name}${labels} ${c.value}`);
  }
}

class GaugeFamily extends CounterFamily {
  protected override readonly type: string = "gauge";
}

class HistogramFamily extends Family<HistogramCell> {
  protected readonly type = "histogram";
  constructor(name: string, help: string, stability: Stability, labelNames: readonly string[], readonly buckets: readonly number[]) {
    super(name, help, stability, labelNames);
  }
  protected make(values: readonly string[]): HistogramCell {
    return new HistogramCell(values, this.buckets);
  }
  protected lines(c: HistogramCell, _labels: string, out: string[]): void {
    let cumulative = 0;
    this.buckets.forEach((le, i) => {
      cumulative += c.counts[i]!;
      out.push(`${this.name}_bucket${this.labelText(c.labels, `le="${le}"`)} ${cumulative}`);
    });
    out.push(`${this.name}_bucket${this.labelText(c.labels, 'le="+Inf"')} ${c.count}`);
    const labels = this.labelText(c.labels);
    out.push(`${this.name}_sum${labels} ${c.sum}`, `${this.name}_count${labels} ${c.count}`);
  }
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

const queueLengthBuckets = [0, 10, 25, 50, 100, 250, 500, 1000];
const durationBuckets = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];
const pf = ["priority_level", "flow_schema"];
const p = ["priority_level"];
const prefix = "apiserver_flowcontrol_";

/** The cells one (priority level, flow schema) pair writes on every request. */
export interface FlowSeries {
  dispatched: Cell;
  inQueue: Cell;
  inQueueSeats: Cell;
  executing: Cell;
  executingSeats: Cell;
  concurrencyInUse: Cell;
  executionRegular: HistogramCell;
  executionWatch: HistogramCell;
  waitExecuted: HistogramCell;
  waitRejected: HistogramCell;
  workEstimatedSeats: HistogramCell;
  queueLength: HistogramCell;
  watchCount: HistogramCell;
}

export class FlowControlMetrics {
  private readonly rejected = new CounterFamily(`${prefix}rejected_requests_total`, "Requests rejected by API Priority and Fairness, by reason (queue-full, concurrency-limit, time-out)", "BETA", [...pf, "reason"]);
  private readonly dispatched = new CounterFamily(`${prefix}dispatched_requests_total`, "Requests API Priority and Fairness let execute", "BETA", pf);
  private readonly inQueue = new GaugeFamily(`${prefix}current_inqueue_requests`, "Requests waiting in the queues of API Priority and Fairness now", "BETA", pf);
  private readonly inQueueSeats = new GaugeFamily(`${prefix}current_inqueue_seats`, "Seats the requests waiting in the queues of API Priority and Fairness will take", "ALPHA", pf);
  private readonly executing = new GaugeFamily(`${prefix}current_executing_requests`, "Requests executing now (a watch only while it initializes)", "BETA", pf);
  private readonly executingSeats = new GaugeFamily(`${prefix}current_executing_seats`, "Seats occupied now by executing requests (a watch only while it initializes)", "BETA", pf);
  private readonly concurrencyInUse = new GaugeFamily(`${prefix}request_concurrency_in_use`, "Seats occupied now by executing requests (deprecated: use current_executing_seats)", "ALPHA", pf);
  private readonly wait = new HistogramFamily(`${prefix}request_wait_duration_seconds`, "Time a request spent waiting in its queue", "BETA", [...pf, "execute"], durationBuckets);
  private readonly execution = new HistogramFamily(`${prefix}request_execution_seconds`, "Time a request executed (a watch: its initialization)", "ALPHA", [...pf, "type"], durationBuckets);
  private readonly queueLength = new HistogramFamily(`${prefix}request_queue_length_after_enqueue`, "Length of the queue a request joined, seen just after it joined", "ALPHA", pf, queueLengthBuckets);
  private readonly workEstimatedSeats = new HistogramFamily(`${prefix}work_estimated_seats`, "Seats a request was estimated to take (the larger of its initial and final seats)", "ALPHA", pf, [1, 2, 4, 8, 16, 32, 64, 100]);
  private readonly watchCount = new HistogramFamily(`${prefix}watch_count_samples`, "Watches a mutating request's events will reach", "ALPHA", pf, [0, 1, 10, 100, 1000, 10000]);
  private readonly noAccommodation = new CounterFamily(`${prefix}request_dispatch_no_accommodation_total`, "Dispatch attempts that found too few free seats", "ALPHA", pf);
  private readonly concurrencyLimit = new GaugeFamily(`${prefix}request_concurrency_limit`, "Nominal seats of each priority level (deprecated: use nominal_limit_seats)", "ALPHA", p);
  private readonly nominal = new GaugeFamily(`${prefix}nominal_limit_seats`, "Nominal seats of each priority level", "BETA", p);
  private readonly lower = new GaugeFamily(`${prefix}lower_limit_seats`, "Lower bound on the seats of each priority level (nominal less lendable)", "ALPHA", p);
  private readonly upper = new GaugeFamily(`${prefix}upper_limit_seats`, "Upper bound on the seats of each priority level (nominal plus borrowable)", "ALPHA", p);
  private readonly current = new GaugeFamily(`${prefix}current_limit_seats`, "Seats each priority level may use now, after borrowing and lending", "ALPHA", p);
  private readonly demandHigh = new GaugeFamily(`${prefix}demand_seats_high_watermark`, "Highest seat demand of each priority level over the last adjustment period", "ALPHA", p);
  private readonly demandAverage = new GaugeFamily(`${prefix}demand_seats_average`, "Time-weighted average seat demand over the last adjustment period", "ALPHA", p);
  private readonly demandStdev = new GaugeFamily(`${prefix}demand_seats_stdev`, "Time-weighted standard deviation of seat demand over the last adjustment period", "ALPHA", p);
  private readonly demandSmoothed = new GaugeFamily(`${prefix}demand_seats_smoothed`, "Smoothed seat demand", "ALPHA", p);
  private readonly target = new GaugeFamily(`${prefix}target_seats`, "Seat allocation target", "ALPHA", p);
  private readonly fairFrac = new GaugeFamily(`${prefix}seat_fair_frac`, "Fair fraction of the server's seats given to each priority level that can use it", "ALPHA", []);
  private readonly currentR = new GaugeFamily(`${prefix}current_r`, "R (virtual time) at the last change", "ALPHA", p);
  private readonly dispatchR = new GaugeFamily(`${prefix}dispatch_r`, "R (virtual time) at the last dispatch", "ALPHA", p);
  private readonly latestS = new GaugeFamily(`${prefix}latest_s`, "S (virtual start) of the request dispatched last", "ALPHA", p);
  private readonly nextS = new GaugeFamily(`${prefix}next_s_bounds`, "Least and greatest S of the oldest waiting request over the queues", "ALPHA", [...p, "bound"]);
  private readonly nextDiscountedS = new GaugeFamily(`${prefix}next_discounted_s_bounds`, "Least and greatest S, less the estimated work in progress, over the queues", "ALPHA", [...p, "bound"]);
  private readonly epochAdvance = new CounterFamily(`${prefix}epoch_advance_total`, "Times a queue set's virtual clock was moved back", "ALPHA", [...p, "success"]);

  private readonly all: Family<any>[] = [
    this.rejected, this.dispatched, this.currentR, this.dispatchR, this.latestS, this.nextS, this.nextDiscountedS, this.inQueue, this.inQueueSeats,
    this.queueLength, this.concurrencyLimit, this.concurrencyInUse, this.executingSeats, this.executing, this.wait, this.execution, this.watchCount,
    this.epochAdvance, this.workEstimatedSeats, this.noAccommodation, this.nominal, this.lower, this.upper, this.demandHigh, this.demandAverage,
    this.demandStdev, this.demandSmoothed, this.target, this.fairFrac, this.current,
  ];
  private readonly pairs = new Map<string, FlowSeries>();

  /** Appends these metrics to the server's /metrics page. */
  register(metrics: ServerMetrics): void {
    metrics.addTextSource(() => this.text());
  }

  text(): string {
    const out: string[] = [];
    for (const f of this.all) f.render(out);
    return out.length ? out.join("\n") + "\n" : "";
  }

  series(pl: string, fs: string): FlowSeries {
    const key = `${pl}\u0000${fs}`;
    let s = this.pairs.get(key);
    if (!s) {
      s = {
        dispatched: this.dispatched.cell(pl, fs),
        inQueue: this.inQueue.cell(pl, fs),
        inQueueSeats: this.inQueueSeats.cell(pl, fs),
        executing: this.executing.cell(pl, fs),
        executingSeats: this.executingSeats.cell(pl, fs),
        concurrencyInUse: this.concurrencyInUse.cell(pl, fs),
        executionRegular: this.execution.cell(pl, fs, "regular"),
        executionWatch: this.execution.cell(pl, fs, "watch"),
        waitExecuted: this.wait.cell(pl, fs, "true"),
        waitRejected: this.wait.cell(pl, fs, "false"),
        workEstimatedSeats: this.workEstimatedSeats.cell(pl, fs),
        queueLength: this.queueLength.cell(pl, fs),
        watchCount: this.watchCount.cell(pl, fs),
      };
      this.pairs.set(key, s);
    }
    return s;
  }

  reject(pl: string, fs: string, reason: "queue-full" | "concurrency-limit" | "time-out"): void {
    this.rejected.cell(pl, fs, reason).add(1);
  }

  noteNoAccommodation(pl: string, fs: string): void {
    this.noAccommodation.cell(pl, fs).add(1);
  }

  setLimits(pl: string, nominal: number, lower: number, upper: number): void {
    this.concurrencyLimit.cell(pl).set(nominal);
    this.nominal.cell(pl).set(nominal);
    this.lower.cell(pl).set(lower);
    this.upper.cell(pl).set(upper);
  }

  noteAdjustment(pl: string, a: { highWatermark: number; average: number; stdDev: number; smoothed: number; target: number; currentLimit: number }): void {
    this.demandHigh.cell(pl).set(a.highWatermark);
    this.demandAverage.cell(pl).set(a.average);
    this.demandStdev.cell(pl).set(a.stdDev);
    this.demandSmoothed.cell(pl).set(a.smoothed);
    this.target.cell(pl).set(a.target);
    this.current.cell(pl).set(a.currentLimit);
  }

  setFairFrac(v: number): void {
    this.fairFrac.cell().set(v);
  }

  /** What one priority level's queue set writes (its gauges found once). */
  level(pl: string) {
    const currentR = this.currentR.cell(pl);
    const cells = [this.dispatchR.cell(pl), this.latestS.cell(pl), this.nextS.cell(pl, "min"), this.nextS.cell(pl, "max"), this.nextDiscountedS.cell(pl, "min"), this.nextDiscountedS.cell(pl, "max")];
    return {
      setCurrentR: (r: number) => currentR.set(r),
      setDispatch: (...values: [r: number, s: number, sMin: number, sMax: number, dsMin: number, dsMax: number]) => values.forEach((v, i) => cells[i]!.set(v)),
      epochAdvanced: (success: boolean) => this.epochAdvance.cell(pl, String(success)).add(1),
      noAccommodation: (fs: string) => this.noteNoAccommodation(pl, fs),
      reject: (fs: string, reason: "queue-full" | "concurrency-limit" | "time-out") => this.reject(pl, fs, reason),
    };
  }
}
