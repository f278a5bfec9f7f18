// The apiserver_flowcontrol_* metrics of API Priority and Fairness (names, labels, buckets and
// stability as kube-apiserver 1.34 exports them), families of the server's registry. They change
// on every request: the request path records into the cells of a (priority level, flow schema)
// pair — `series()` hands them out, kept — and the text is made only when scraped.
import { CounterFamily, GaugeFamily, HistogramFamily, type CounterCell, type Family, type GaugeCell, type HistogramCell } from "./metric-family.js";
import type { ServerMetrics } from "./metrics.js";
import { KindWatermark, type RequestKind } from "./kind-watermark.js";
import { readVsWriteFamily } from "./read-vs-write.js";
import { nowNs, TimingRatioHistogramFamily, type TimingRatioCell } from "./timing-ratio-histogram.js";

const queueLengthBuckets = [0, 10, 25, 50, 100, 250, 500, 1000];
const durationBuckets = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];
const pf = ["priority_level", "flow_schema"];
const p = ["priority_level"];
const prefix = "apiserver_flowcontrol_";

/** The cells one (priority level, flow schema) pair writes on every request. */
export interface FlowSeries {
  dispatched: CounterCell;
  inQueue: GaugeCell;
  inQueueSeats: GaugeCell;
  executing: GaugeCell;
  executingSeats: GaugeCell;
  concurrencyInUse: GaugeCell;
  executionRegular: HistogramCell;
  executionWatch: HistogramCell;
  waitExecuted: HistogramCell;
  waitRejected: HistogramCell;
  workEstimatedSeats: HistogramCell;
  queueLength: HistogramCell;
  watchCount: HistogramCell;
}

export class FlowControlMetrics {
  private readonly rejected = new CounterFamily({ name: `${prefix}rejected_requests_total`, help: "Requests rejected by API Priority and Fairness, by reason (queue-full, concurrency-limit, time-out)", stability: "BETA", labels: [...pf, "reason"] });
  private readonly dispatched = new CounterFamily({ name: `${prefix}dispatched_requests_total`, help: "Requests API Priority and Fairness let execute", stability: "BETA", labels: pf });
  private readonly inQueue = new GaugeFamily({ name: `${prefix}current_inqueue_requests`, help: "Requests waiting in the queues of API Priority and Fairness now", stability: "BETA", labels: pf });
  private readonly inQueueSeats = new GaugeFamily({ name: `${prefix}current_inqueue_seats`, help: "Seats the requests waiting in the queues of API Priority and Fairness will take", stability: "ALPHA", labels: pf });
  private readonly executing = new GaugeFamily({ name: `${prefix}current_executing_requests`, help: "Requests executing now (a watch only while it initializes)", stability: "BETA", labels: pf });
  private readonly executingSeats = new GaugeFamily({ name: `${prefix}current_executing_seats`, help: "Seats occupied now by executing requests (a watch only while it initializes)", stability: "BETA", labels: pf });
  private readonly concurrencyInUse = new GaugeFamily({ name: `${prefix}request_concurrency_in_use`, help: "Seats occupied now by executing requests (deprecated: use current_executing_seats)", stability: "ALPHA", deprecatedVersion: "1.31.0", labels: pf });
  private readonly wait = new HistogramFamily({ name: `${prefix}request_wait_duration_seconds`, help: "Time a request spent waiting in its queue", stability: "BETA", buckets: durationBuckets, labels: [...pf, "execute"] });
  private readonly execution = new HistogramFamily({ name: `${prefix}request_execution_seconds`, help: "Time a request executed (a watch: its initialization)", stability: "ALPHA", buckets: durationBuckets, labels: [...pf, "type"] });
  private readonly queueLength = new HistogramFamily({ name: `${prefix}request_queue_length_after_enqueue`, help: "Length of the queue a request joined, seen just after it joined", stability: "ALPHA", buckets: queueLengthBuckets, labels: pf });
  private readonly workEstimatedSeats = new HistogramFamily({ name: `${prefix}work_estimated_seats`, help: "Seats a request was estimated to take (the larger of its initial and final seats)", stability: "ALPHA", buckets: [1, 2, 4, 8, 16, 32, 64, 100], labels: pf });
  private readonly watchCount = new HistogramFamily({ name: `${prefix}watch_count_samples`, help: "Watches a mutating request's events will reach", stability: "ALPHA", buckets: [0, 1, 10, 100, 1000, 10000], labels: pf });
  private readonly noAccommodation = new CounterFamily({ name: `${prefix}request_dispatch_no_accommodation_total`, help: "Dispatch attempts that found too few free seats", stability: "ALPHA", labels: pf });
  private readonly concurrencyLimit = new GaugeFamily({ name: `${prefix}request_concurrency_limit`, help: "Nominal seats of each priority level (deprecated: use nominal_limit_seats)", stability: "ALPHA", deprecatedVersion: "1.30.0", labels: p });
  private readonly nominal = new GaugeFamily({ name: `${prefix}nominal_limit_seats`, help: "Nominal seats of each priority level", stability: "BETA", labels: p });
  private readonly lower = new GaugeFamily({ name: `${prefix}lower_limit_seats`, help: "Lower bound on the seats of each priority level (nominal less lendable)", stability: "ALPHA", labels: p });
  private readonly upper = new GaugeFamily({ name: `${prefix}upper_limit_seats`, help: "Upper bound on the seats of each priority level (nominal plus borrowable)", stability: "ALPHA", labels: p });
  private readonly current = new GaugeFamily({ name: `${prefix}current_limit_seats`, help: "Seats each priority level may use now, after borrowing and lending", stability: "ALPHA", labels: p });
  private readonly demandHigh = new GaugeFamily({ name: `${prefix}demand_seats_high_watermark`, help: "Highest seat demand of each priority level over the last adjustment period", stability: "ALPHA", labels: p });
  private readonly demandAverage = new GaugeFamily({ name: `${prefix}demand_seats_average`, help: "Time-weighted average seat demand over the last adjustment period", stability: "ALPHA", labels: p });
  private readonly demandStdev = new GaugeFamily({ name: `${prefix}demand_seats_stdev`, help: "Time-weighted standard deviation of seat demand over the last adjustment period", stability: "ALPHA", labels: p });
  private readonly demandSmoothed = new GaugeFamily({ name: `${prefix}demand_seats_smoothed`, help: "Smoothed seat demand", stability: "ALPHA", labels: p });
  private readonly target = new GaugeFamily({ name: `${prefix}target_seats`, help: "Seat allocation target", stability: "ALPHA", labels: p });
  private readonly fairFrac = new GaugeFamily({ name: `${prefix}seat_fair_frac`, help: "Fair fraction of the server's seats given to each priority level that can use it", stability: "ALPHA", labels: [] });
  private readonly currentR = new GaugeFamily({ name: `${prefix}current_r`, help: "R (virtual time) at the last change", stability: "ALPHA", labels: p });
  private readonly dispatchR = new GaugeFamily({ name: `${prefix}dispatch_r`, help: "R (virtual time) at the last dispatch", stability: "ALPHA", labels: p });
  private readonly latestS = new GaugeFamily({ name: `${prefix}latest_s`, help: "S (virtual start) of the request dispatched last", stability: "ALPHA", labels: p });
  private readonly nextS = new GaugeFamily({ name: `${prefix}next_s_bounds`, help: "Least and greatest S of the oldest waiting request over the queues", stability: "ALPHA", labels: [...p, "bound"] });
  private readonly nextDiscountedS = new GaugeFamily({ name: `${prefix}next_discounted_s_bounds`, help: "Least and greatest S, less the estimated work in progress, over the queues", stability: "ALPHA", labels: [...p, "bound"] });
  // The timing ratio histograms: each ratio's time spent in each bucket (timing-ratio-histogram.ts).
  private readonly seatUtilization = new TimingRatioHistogramFamily({ name: `${prefix}priority_level_seat_utilization`, help: "Observations, at the end of every nanosecond, of the share of each priority level's seats occupied by executing requests (a watch: while it initializes)", stability: "ALPHA", labels: ["phase", ...p], buckets: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1] });
  private readonly requestUtilization = new TimingRatioHistogramFamily({ name: `${prefix}priority_level_request_utilization`, help: "Observations, at the end of every nanosecond, of the requests of each priority level waiting (a share of its queues' room) or executing (a share of its seats; a watch: while it initializes)", stability: "ALPHA", labels: ["phase", ...p], buckets: [0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.25, 0.5, 0.75, 1] });
  private readonly readVsWrite = readVsWriteFamily();
  private readonly seatDemand = new TimingRatioHistogramFamily({ name: `${prefix}demand_seats`, help: "Observations, at the end of every nanosecond, of the seats each priority level could use (executing and waiting) over its seat count", stability: "ALPHA", labels: p, buckets: [0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.7, 2, 2.8, 4, 6] });
  /** Requests waiting in the queues now, by kind, for the in-queue gauge's watermark. */
  private readonly waitingKinds = new KindWatermark();
  // An endpoints family upstream, fed only by priority and fairness's waiting requests.
  private readonly inQueueKinds = new GaugeFamily({
    name: "apiserver_current_inqueue_requests",
    help: "The most requests waiting in the queues of API Priority and Fairness at once during about the last second, per kind of request (readOnly or mutating).",
    stability: "ALPHA",
    labels: ["request_kind"],
    collect: () => {
      const at = performance.now();
      for (const k of ["readOnly", "mutating"] as const) this.inQueueKinds.with(k).set(this.waitingKinds.peak(k, at));
    },
  });
  private readonly epochAdvance = new CounterFamily({ name: `${prefix}epoch_advance_total`, help: "Times a queue set's virtual clock was moved back", stability: "ALPHA", labels: [...p, "success"] });

  private readonly all: Family<unknown>[] = [
    this.rejected, this.dispatched, this.currentR, this.dispatchR, this.latestS, this.nextS, this.nextDiscountedS, this.inQueue, this.inQueueSeats,
    this.queueLength, this.concurrencyLimit, this.concurrencyInUse, this.executingSeats, this.executing, this.wait, this.execution, this.watchCount,
    this.epochAdvance, this.workEstimatedSeats, this.noAccommodation, this.nominal, this.lower, this.upper, this.demandHigh, this.demandAverage,
    this.demandStdev, this.demandSmoothed, this.target, this.fairFrac, this.current,
    this.seatUtilization, this.requestUtilization, this.readVsWrite, this.seatDemand, this.inQueueKinds,
  ];
  private readonly pairs = new Map<string, FlowSeries>();

  constructor() {
    for (const k of ["readOnly", "mutating"]) this.inQueueKinds.with(k);
  }

  /** Registers these families on the server's /metrics page (the stability rules apply). */
  register(metrics: ServerMetrics): void {
    metrics.register(...this.all);
  }

  /** Its families in the text format. */
  text(): string {
    return this.all.map((f) => f.render()).join("");
  }

  series(pl: string, fs: string): FlowSeries {
    const key = `${pl}\u0000${fs}`;
    let s = this.pairs.get(key);
    if (!s) {
      s = {
        dispatched: this.dispatched.with(pl, fs),
        inQueue: this.inQueue.with(pl, fs),
        inQueueSeats: this.inQueueSeats.with(pl, fs),
        executing: this.executing.with(pl, fs),
        executingSeats: this.executingSeats.with(pl, fs),
        concurrencyInUse: this.concurrencyInUse.with(pl, fs),
        executionRegular: this.execution.with(pl, fs, "regular"),
        executionWatch: this.execution.with(pl, fs, "watch"),
        waitExecuted: this.wait.with(pl, fs, "true"),
        waitRejected: this.wait.with(pl, fs, "false"),
        workEstimatedSeats: this.workEstimatedSeats.with(pl, fs),
        queueLength: this.queueLength.with(pl, fs),
        watchCount: this.watchCount.with(pl, fs),
      };
      this.pairs.set(key, s);
    }
    return s;
  }

  reject(pl: string, fs: string, reason: "queue-full" | "concurrency-limit" | "time-out"): void {
    this.rejected.with(pl, fs, reason).inc();
  }

  noteNoAccommodation(pl: string, fs: string): void {
    this.noAccommodation.with(pl, fs).inc();
  }

  setLimits(pl: string, nominal: number, lower: number, upper: number): void {
    this.concurrencyLimit.with(pl).set(nominal);
    this.nominal.with(pl).set(nominal);
    this.lower.with(pl).set(lower);
    this.upper.with(pl).set(upper);
  }

  noteAdjustment(pl: string, a: { highWatermark: number; average: number; stdDev: number; smoothed: number; target: number; currentLimit: number }): void {
    this.demandHigh.with(pl).set(a.highWatermark);
    this.demandAverage.with(pl).set(a.average);
    this.demandStdev.with(pl).set(a.stdDev);
    this.demandSmoothed.with(pl).set(a.smoothed);
    this.target.with(pl).set(a.target);
    this.current.with(pl).set(a.currentLimit);
  }

  setFairFrac(v: number): void {
    this.fairFrac.with().set(v);
  }

  /**
   * The server's read-only and mutating requests waiting and executing under flow control, each
   * a ratio of all queues' room or of all seats (upstream's read_vs_write_current_requests).
   */
  readonly requestKinds: Record<"waiting" | "executing", Record<"readOnly" | "mutating", TimingRatioCell>> = {
    waiting: { readOnly: this.readVsWrite.with("waiting", "readOnly"), mutating: this.readVsWrite.with("waiting", "mutating") },
    executing: { readOnly: this.readVsWrite.with("executing", "readOnly"), mutating: this.readVsWrite.with("executing", "mutating") },
  };

  /** A request of `kind` joined (true) or left (false) a queue. */
  queued(kind: RequestKind, inQueue: boolean): void {
    this.requestKinds.waiting[kind].add(inQueue ? 1 : -1);
    if (inQueue) this.waitingKinds.up(kind, performance.now());
    else this.waitingKinds.down(kind);
  }

  /** The denominators of requestKinds: all queues' room (waiting) and all nominal seats (executing). */
  setRequestKindLimits(maxWaiting: number, maxExecuting: number): void {
    for (const kind of ["readOnly", "mutating"] as const) {
      this.requestKinds.waiting[kind].setDenominator(maxWaiting);
      this.requestKinds.executing[kind].setDenominator(maxExecuting);
    }
  }

  /** What one priority level's queue set writes (its gauges found once). */
  level(pl: string) {
    const currentR = this.currentR.with(pl);
    const utilization = {
      waiting: this.requestUtilization.with("waiting", pl),
      executing: this.requestUtilization.with("executing", pl),
      seats: this.seatUtilization.with("executing", pl),
      demand: this.seatDemand.with(pl),
    };
    const cells = [this.dispatchR.with(pl), this.latestS.with(pl), this.nextS.with(pl, "min"), this.nextS.with(pl, "max"), this.nextDiscountedS.with(pl, "min"), this.nextDiscountedS.with(pl, "max")];
    return {
      setCurrentR: (r: number) => currentR.set(r),
      setDispatch: (...values: [r: number, s: number, sMin: number, sMax: number, dsMin: number, dsMax: number]) => values.forEach((v, i) => cells[i]!.set(v)),
      epochAdvanced: (success: boolean) => this.epochAdvance.with(pl, String(success)).inc(),
      noAccommodation: (fs: string) => this.noteNoAccommodation(pl, fs),
      reject: (fs: string, reason: "queue-full" | "concurrency-limit" | "time-out") => this.reject(pl, fs, reason),
      utilization,
      nowNs,
    };
  }
}
