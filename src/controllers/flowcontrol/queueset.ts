// One priority level's queues and seats (upstream: fairqueuing/queueset, release 1.34). A
// request is dealt a hand of queues by its flow's hash (shuffle sharding), joins the one with the
// least work waiting, and is dispatched by fair queuing: the queue whose oldest request would
// finish first in virtual time R goes next. R advances, per active queue, at the rate the
// level's seats are given out, so a flow with many requests waits behind its own queue and not
// in front of others. A level without queues (exempt, or a Reject limit response) dispatches at
// once or refuses.
//
// Everything here runs on the one event loop: upstream's lock is the absence of awaits.
import type { UserInfo } from "../../apimachinery/user.js";
import type { RequestInfo } from "../../http/request-info.js";
import type { FlowSeries } from "../../observability/flowcontrol-metrics.js";
import { ExecutingSet } from "./executing-set.js";
import { RequestFifo } from "./fifo.js";
import { formatSeatSeconds, highR, maxSeatSeconds, msPerSeat, rDecrement, seatSecondsToFloat, seatsTimesMs } from "./seat-seconds.js";
import type { Dealer } from "./shuffle-sharding.js";
import { maxSeats, type WorkEstimate } from "./work-estimate.js";

export interface Clock {
  /** Milliseconds since the epoch, with a fraction. */
  now(): number;
  /** Runs `fn` after `ms` (seats held past a request's end); must not keep the process alive. */
  after(ms: number, fn: () => void): void;
}

/** Read once: the getter makes a number each time (~80 bytes a read, several per request). */
const timeOrigin = performance.timeOrigin;

export const realClock: Clock = {
  now: () => timeOrigin + performance.now(),
  after: (ms, fn) => void setTimeout(fn, ms).unref(),
};

/**
 * A reading `ms` of `clock` as the timing ratio gauges' time (performance.now() in ns), when the
 * clock is the real one: a request's start and end are read once for the queues, the gauges and
 * the latency alike (each reading costs ~60 ns here, and a request made eight). Undefined for
 * another clock (a test's): the gauges then read their own.
 */
export function gaugeTimeOf(clock: Clock, ms: number): number | undefined {
  return clock === realClock ? (ms - timeOrigin) * 1e6 : undefined;
}

export interface QueuingConfig {
  name: string;
  /** -1: exempt (no limit at all); 0: no queues (refuse when full); else the number of queues. */
  desiredNumQueues: number;
  queueLengthLimit: number;
  handSize: number;
  dealer?: Dealer;
}

export interface DispatchingConfig {
  concurrencyLimit: number;
  concurrencyDenominator: number;
}

/** What the queue set is told of its priority level's gauges (the per-level metrics). */
export interface LevelMetrics {
  setCurrentR(r: number): void;
  setDispatch(r: number, s: number, sMin: number, sMax: number, dsMin: number, dsMax: number): void;
  epochAdvanced(success: boolean): void;
  noAccommodation(fsName: string): void;
  reject(fsName: string, reason: "queue-full" | "concurrency-limit" | "time-out"): void;
  /** The level's timing ratio gauges: requests waiting and executing, seats executing, seat demand. */
  utilization?: Record<"waiting" | "executing" | "seats" | "demand", RatioGauge>;
  /** performance.now() in ns: one reading serves all the gauges a change sets (each would read the clock again). */
  nowNs?(): number;
}

/** A gauge observed as a ratio of a numerator to a denominator (upstream's RatioedGauge). */
export interface RatioGauge {
  /** `nowNs`: the time of the change when the caller has read it already (performance.now() in ns). */
  set(numerator: number, nowNs?: number): void;
  setDenominator(denominator: number): void;
}

/** Who asked what (the debug dump shows it): the request's own, never copied. */
export interface RequestDetail {
  user: UserInfo;
  info: RequestInfo;
}

interface CompletedWork extends WorkEstimate {
  totalWork: number;
  finalWork: number;
}

export class Queue {
  readonly waiting = new RequestFifo<Request>();
  nextDispatchR = 0;
  readonly executing = new ExecutingSet<Request>();
  seatsInUse = 0;
  constructor(public index: number) {}
}

export class Request {
  queue: Queue | undefined;
  /** Unset while waiting; "execute" once dispatched, "cancel" once the wait ended without. */
  decision: "execute" | "cancel" | undefined;
  startTime = 0;
  /** Where it is in its queue's (or its level's) executing requests; -1: not executing. */
  executingSlot = -1;
  removeFromQueue: (() => Request | undefined) | undefined;
  private resolveWait: ((execute: boolean) => void) | undefined;
  private decided: Promise<boolean> | undefined;

  constructor(
    readonly qs: QueueSet,
    readonly fsName: string,
    readonly flowDistinguisher: string,
    readonly work: CompletedWork,
    readonly arrivalTime: number,
    public arrivalR: number,
    readonly series: FlowSeries,
    readonly detail: RequestDetail,
    readonly queueNote?: (inQueue: boolean) => void,
  ) {
    this.maxSeats = maxSeats(work);
  }

  get initialSeats(): number {
    return this.work.initialSeats;
  }
  /** Read at every change of the seats in use or waiting: computed once. */
  readonly maxSeats: number;
  get totalWork(): number {
    return this.work.totalWork;
  }

  /** Resolves true once dispatched, false when the wait ended first (see cancel). */
  wait(): Promise<boolean> {
    if (this.decision) return Promise.resolve(this.decision === "execute");
    return (this.decided ??= new Promise((resolve) => (this.resolveWait = resolve)));
  }

  /** Decides once; false when already decided. */
  decide(d: "execute" | "cancel"): boolean {
    if (this.decision) return false;
    this.decision = d;
    this.resolveWait?.(d === "execute");
    return true;
  }

  /** The wait is over without a dispatch (its deadline passed, or the client went away). */
  cancel(): void {
    if (this.decide("cancel")) this.qs.cancelWaiting(this);
  }

  /**
   * The request finished executing: its seats go back (some later, see additionalLatency).
   * `now`: the clock's reading then, when the caller has it.
   */
  finish(now?: number): boolean {
    return this.qs.finishRequest(this, now);
  }
}

export interface QueueSetDump {
  queues: QueueDump[];
  queuelessExecuting: Request[];
  waiting: number;
  executing: number;
  seatsInUse: number;
  seatsWaiting: number;
  dispatched: number;
  rejected: number;
  timedout: number;
  cancelled: number;
}

export interface QueueDump {
  waiting: Request[];
  executing: Request[];
  nextDispatchR: string;
  seatsInUse: number;
  initialSeatsSum: number;
  maxSeatsSum: number;
  totalWorkSum: string;
}

/** What startRequest answers: a request to wait for (maybe dispatched already), or a refusal. */
export type StartResult = { request: Request } | { request?: undefined; idle: boolean };

const estimatedServiceMs = 3;
const isActive = (q: Queue) => q.waiting.length > 0 || q.executing.size > 0;

export class QueueSet {
  private queues: Queue[] = [];
  private currentR = 0;
  private lastRealTime: number;
  private robinIndex = -1;
  private totRequestsWaiting = 0;
  private totRequestsExecuting = 0;
  private readonly executingSansQueue = new ExecutingSet<Request>();
  private totSeatsInUse = 0;
  private totSeatsWaiting = 0;
  /** Kept as they change (R's rate needs them at every step): queues with requests, seats of queued requests executing. */
  private activeQueues = 0;
  private queuedSeatsInUse = 0;
  private enqueues = 0;
  private totRequestsDispatched = 0;
  private totRequestsRejected = 0;
  private totRequestsTimedout = 0;
  private totRequestsCancelled = 0;
  private dCfg: DispatchingConfig = { concurrencyLimit: 0, concurrencyDenominator: 1 };
  /** Each flow's hand, dealt once per configuration (a flow's requests keep coming). */
  private hands = new Map<bigint, number[]>();

  constructor(
    private qCfg: QueuingConfig,
    private readonly clock: Clock,
    private readonly metrics: LevelMetrics,
    /** Told the seats in use plus waiting whenever they change (the level's seat demand), and when (the clock's time). */
    private readonly seatDemand: (seats: number, now: number) => void,
  ) {
    this.lastRealTime = clock.now();
  }

  get name(): string {
    return this.qCfg.name;
  }

  get concurrencyLimit(): number {
    return this.dCfg.concurrencyLimit;
  }

  /** A new queuing configuration and concurrency limit; waiting requests may be dispatched at once. */
  configure(qCfg: QueuingConfig, dCfg: DispatchingConfig): void {
    this.syncTime();
    if (qCfg.desiredNumQueues > 0) {
      for (let i = this.queues.length; i < qCfg.desiredNumQueues; i++) this.queues.push(new Queue(i));
    } else {
      qCfg = { ...qCfg, queueLengthLimit: this.qCfg.queueLengthLimit, handSize: this.qCfg.handSize };
    }
    if (qCfg.dealer !== this.qCfg.dealer) this.hands = new Map();
    this.qCfg = qCfg;
    this.dCfg = dCfg;
    const u = this.metrics.utilization;
    if (u) {
      // Upstream's denominators: all the queues' room (at least 1 each), and the seats.
      u.waiting.setDenominator(Math.max(1, qCfg.queueLengthLimit) * Math.max(1, qCfg.desiredNumQueues));
      for (const g of [u.executing, u.seats, u.demand]) g.setDenominator(dCfg.concurrencyDenominator);
    }
    this.dispatchAsMuchAsPossible();
  }

  /** The requests or seats waiting or executing changed: the seat demand and the utilization gauges hear it. */
  private noteChange(): void {
    // Every change comes after syncTime in the same turn: its time is the clock's last reading.
    this.seatDemand(this.totSeatsInUse + this.totSeatsWaiting, this.lastRealTime);
    const u = this.metrics.utilization;
    if (!u) return;
    const t = gaugeTimeOf(this.clock, this.lastRealTime) ?? this.metrics.nowNs?.();
    u.waiting.set(this.totRequestsWaiting, t);
    u.executing.set(this.totRequestsExecuting, t);
    u.seats.set(this.totSeatsInUse, t);
    u.demand.set(this.totSeatsInUse + this.totSeatsWaiting, t);
  }

  isIdle(): boolean {
    return this.totRequestsWaiting === 0 && this.totRequestsExecuting === 0;
  }

  startRequest(we: WorkEstimate, hash: bigint, flowDistinguisher: string, fsName: string, series: FlowSeries, detail: RequestDetail, queueNote?: (inQueue: boolean) => void): StartResult {
    this.syncTime();
    const now = this.lastRealTime;
    const req = new Request(this, fsName, flowDistinguisher, this.completeWork(we), now, this.currentR, series, detail, queueNote);
    if (this.qCfg.desiredNumQueues < 1) {
      if (!this.canAccommodateSeats(req.maxSeats)) {
        this.totRequestsRejected++;
        this.metrics.reject(fsName, "concurrency-limit");
        return { idle: this.isIdle() };
      }
      req.decision = "execute";
      req.startTime = now;
      this.totRequestsExecuting++;
      this.totSeatsInUse += req.maxSeats;
      this.executingSansQueue.add(req);
      series.executing.inc(1);
      series.executingSeats.inc(req.maxSeats);
      series.concurrencyInUse.inc(req.maxSeats);
      this.noteChange();
      return { request: req };
    }
    const queue = this.queues[this.shuffleShard(hash)]!;
    req.queue = queue;
    if (this.totSeatsInUse >= this.dCfg.concurrencyLimit && queue.waiting.length >= this.qCfg.queueLengthLimit) {
      this.boundNextDispatch(queue);
      this.totRequestsRejected++;
      this.metrics.reject(fsName, "queue-full");
      return { idle: this.isIdle() };
    }
    this.enqueue(req);
    this.boundNextDispatch(queue);
    series.queueLength.observe(queue.waiting.length);
    this.dispatchAsMuchAsPossible();
    return { request: req };
  }

  private completeWork(we: WorkEstimate): CompletedWork {
    const finalWork = we.finalSeats === 0 ? 0 : seatsTimesMs(we.finalSeats, we.additionalLatencyMs);
    return { initialSeats: we.initialSeats, finalSeats: we.finalSeats, additionalLatencyMs: we.additionalLatencyMs, totalWork: seatsTimesMs(we.initialSeats, estimatedServiceMs) + finalWork, finalWork };
  }

  /**
   * R advances with real time, at the seats given out shared among the active queues. `now`: a
   * reading of the clock taken in this turn (the caller's), else it is read here.
   */
  private syncTime(now = this.clock.now()): void {
    const elapsed = now - this.lastRealTime;
    this.lastRealTime = now;
    if (this.queues.length > 0 && elapsed > 0) {
      this.currentR += seatsTimesMs(this.virtualTimeRatio(), elapsed);
      if (this.currentR >= highR) this.advanceEpoch();
    }
    this.metrics.setCurrentR(seatSecondsToFloat(this.currentR));
  }

  private advanceEpoch(): void {
    this.currentR -= rDecrement;
    let success = true;
    for (const q of this.queues) {
      if (q.waiting.length === 0 && q.executing.size === 0) {
        q.nextDispatchR = 0;
        continue;
      }
      q.nextDispatchR -= rDecrement;
      if (q.nextDispatchR < -rDecrement) success = false;
      for (const r of q.waiting.values()) r.arrivalR -= rDecrement;
    }
    this.metrics.epochAdvanced(success);
  }

  private virtualTimeRatio(): number {
    if (this.activeQueues === 0) return 0;
    return Math.min(this.queuedSeatsInUse + this.totSeatsWaiting, this.dCfg.concurrencyLimit) / this.activeQueues;
  }

  /** Call around a change of a queue's requests: keeps the count of active queues. */
  private activity(q: Queue, wasActive: boolean): void {
    this.activeQueues += Number(isActive(q)) - Number(wasActive);
  }

  /** Of the flow's hand, the queue with the least work waiting (ties: rotating start). */
  private shuffleShard(hash: bigint): number {
    let hand = this.hands.get(hash);
    if (!hand) {
      if (this.hands.size >= 10_000) this.hands.clear();
      this.hands.set(hash, (hand = this.qCfg.dealer!.deal(hash)));
    }
    const offset = this.enqueues % hand.length;
    this.enqueues++;
    let best = -1;
    let least = maxSeatSeconds;
    for (let i = 0; i < hand.length; i++) {
      const idx = hand[(offset + i) % hand.length]!;
      const work = this.queues[idx]!.waiting.totalWorkSum;
      if (work < least) {
        least = work;
        best = idx;
      }
    }
    return best;
  }

  private enqueue(req: Request): void {
    const queue = req.queue!;
    const wasActive = isActive(queue);
    if (!wasActive) queue.nextDispatchR = this.currentR;
    req.removeFromQueue = queue.waiting.enqueue(req);
    this.activity(queue, wasActive);
    this.totRequestsWaiting++;
    this.totSeatsWaiting += req.maxSeats;
    req.series.inQueue.inc(1);
    req.series.inQueueSeats.inc(req.maxSeats);
    req.queueNote?.(true);
    this.noteChange();
  }

  /** A waiting request gives up (its wait limit passed or its client left): out of its queue. */
  cancelWaiting(req: Request): void {
    this.syncTime();
    const queue = req.queue;
    if (!queue || req.removeFromQueue?.() === undefined) return;
    this.activity(queue, true);
    this.totRequestsWaiting--;
    this.totSeatsWaiting -= req.maxSeats;
    this.totRequestsRejected++;
    this.totRequestsCancelled++;
    this.metrics.reject(req.fsName, "time-out");
    req.series.inQueue.inc(-1);
    req.series.inQueueSeats.inc(-req.maxSeats);
    req.queueNote?.(false);
    this.noteChange();
    this.boundNextDispatch(queue);
  }

  private dispatchAsMuchAsPossible(): void {
    while (this.totRequestsWaiting !== 0 && this.totSeatsInUse < this.dCfg.concurrencyLimit && this.dispatchOne());
  }

  private dispatchOne(): boolean {
    const found = this.findDispatchQueue();
    if (!found) return false;
    const [queue, req] = found;
    this.totRequestsWaiting--;
    this.totSeatsWaiting -= req.maxSeats;
    req.series.inQueue.inc(-1);
    req.series.inQueueSeats.inc(-req.maxSeats);
    req.queueNote?.(false);
    if (!req.decide("execute")) {
      this.activity(queue, true);
      this.noteChange();
      this.boundNextDispatch(queue);
      return true;
    }
    // Dispatching follows syncTime in the same turn (a request's start, end or reconfiguration).
    req.startTime = this.lastRealTime;
    this.totRequestsExecuting++;
    this.totSeatsInUse += req.maxSeats;
    queue.executing.add(req);
    this.activity(queue, true);
    queue.seatsInUse += req.maxSeats;
    this.queuedSeatsInUse += req.maxSeats;
    req.series.executing.inc(1);
    req.series.executingSeats.inc(req.maxSeats);
    req.series.concurrencyInUse.inc(req.maxSeats);
    this.noteChange();
    queue.nextDispatchR += req.totalWork;
    this.boundNextDispatch(queue);
    return true;
  }

  private canAccommodateSeats(seats: number): boolean {
    if (this.qCfg.desiredNumQueues < 0) return true;
    // A request wider than the whole level runs alone.
    if (seats > this.dCfg.concurrencyLimit) return this.totRequestsExecuting === 0;
    return this.totSeatsInUse + seats <= this.dCfg.concurrencyLimit;
  }

  /** The queue whose oldest request finishes first in virtual time, and that request (taken out). */
  private findDispatchQueue(): [Queue, Request] | undefined {
    let minVirtualFinish = maxSeatSeconds;
    let sMin = maxSeatSeconds;
    let dsMin = maxSeatSeconds;
    let sMax = 0;
    let dsMax = 0;
    let minQueue: Queue | undefined;
    let minIndex = 0;
    const nq = this.queues.length;
    for (let n = 0; n < nq; n++) {
      this.robinIndex = (this.robinIndex + 1) % nq;
      const queue = this.queues[this.robinIndex]!;
      const oldest = queue.waiting.peek();
      if (!oldest) continue;
      sMin = Math.min(sMin, queue.nextDispatchR);
      sMax = Math.max(sMax, queue.nextDispatchR);
      const inProgress = seatsTimesMs(queue.seatsInUse, estimatedServiceMs);
      dsMin = Math.min(dsMin, queue.nextDispatchR - inProgress);
      dsMax = Math.max(dsMax, queue.nextDispatchR - inProgress);
      const finish = queue.nextDispatchR + oldest.totalWork;
      if (finish < minVirtualFinish) {
        minVirtualFinish = finish;
        minQueue = queue;
        minIndex = this.robinIndex;
      }
    }
    const oldest = minQueue?.waiting.peek();
    if (!minQueue || !oldest) return undefined;
    if (!this.canAccommodateSeats(oldest.maxSeats)) {
      this.metrics.noAccommodation(oldest.fsName);
      return undefined;
    }
    oldest.removeFromQueue!();
    // Final seats beyond the whole level are held longer instead.
    if (oldest.work.finalSeats > this.dCfg.concurrencyLimit) {
      oldest.work.finalSeats = this.dCfg.concurrencyLimit;
      oldest.work.additionalLatencyMs = msPerSeat(oldest.work.finalWork, this.dCfg.concurrencyLimit);
    }
    this.robinIndex = minIndex;
    this.metrics.setDispatch(seatSecondsToFloat(this.currentR), seatSecondsToFloat(minQueue.nextDispatchR), seatSecondsToFloat(sMin), seatSecondsToFloat(sMax), seatSecondsToFloat(dsMin), seatSecondsToFloat(dsMax));
    return [minQueue, oldest];
  }

  /** Counts a request that went on to execute (the dump's DispatchedRequests). */
  noteDispatched(): void {
    this.totRequestsDispatched++;
  }

  /** A request ended: its queue's virtual time is corrected by its real duration; returns whether the set is idle. */
  finishRequest(r: Request, at?: number): boolean {
    this.syncTime(at);
    const now = this.lastRealTime;
    this.totRequestsExecuting--;
    r.series.executing.inc(-1);
    this.metrics.utilization?.executing.set(this.totRequestsExecuting, gaugeTimeOf(this.clock, now));
    const actualMs = now - r.startTime;
    if (r.queue) {
      r.queue.executing.delete(r);
      this.activity(r.queue, true);
      r.queue.nextDispatchR -= seatsTimesMs(r.initialSeats, estimatedServiceMs - actualMs);
      this.boundNextDispatch(r.queue);
    } else {
      this.executingSansQueue.delete(r);
    }
    if (r.work.additionalLatencyMs <= 0) {
      this.releaseSeats(r);
    } else {
      this.clock.after(r.work.additionalLatencyMs, () => {
        this.syncTime();
        this.releaseSeats(r);
        this.dispatchAsMuchAsPossible();
      });
    }
    this.dispatchAsMuchAsPossible();
    return this.isIdle();
  }

  /** A finished request's seats go back (at once, or after its additional latency). */
  private releaseSeats(r: Request): void {
    this.totSeatsInUse -= r.maxSeats;
    r.series.executingSeats.inc(-r.maxSeats);
    r.series.concurrencyInUse.inc(-r.maxSeats);
    this.noteChange();
    if (r.queue) {
      r.queue.seatsInUse -= r.maxSeats;
      this.queuedSeatsInUse -= r.maxSeats;
    }
    this.removeQueueIfEmpty(r);
  }

  /** A queue never starts its next request before that request arrived (anti-windup). */
  private boundNextDispatch(queue: Queue): void {
    const oldest = queue.waiting.peek();
    if (oldest && queue.nextDispatchR < oldest.arrivalR) queue.nextDispatchR = oldest.arrivalR;
  }

  /** Queues beyond a shrunk configuration go once empty. */
  private removeQueueIfEmpty(r: Request): void {
    const q = r.queue;
    if (!q || this.queues.length <= this.qCfg.desiredNumQueues || q.waiting.length > 0 || q.executing.size > 0) return;
    if (this.queues[q.index] !== q) return;
    this.queues.splice(q.index, 1);
    for (let i = q.index; i < this.queues.length; i++) this.queues[i]!.index--;
    if (this.robinIndex >= q.index) this.robinIndex--;
  }

  dump(): QueueSetDump {
    return {
      queues: this.queues.map((q) => ({
        waiting: [...q.waiting.values()],
        executing: [...q.executing],
        nextDispatchR: formatSeatSeconds(q.nextDispatchR),
        seatsInUse: q.seatsInUse,
        initialSeatsSum: q.waiting.initialSeatsSum,
        maxSeatsSum: q.waiting.maxSeatsSum,
        totalWorkSum: formatSeatSeconds(q.waiting.totalWorkSum),
      })),
      queuelessExecuting: [...this.executingSansQueue],
      waiting: this.totRequestsWaiting,
      executing: this.totRequestsExecuting,
      seatsInUse: this.totSeatsInUse,
      seatsWaiting: this.totSeatsWaiting,
      dispatched: this.totRequestsDispatched,
      rejected: this.totRequestsRejected,
      timedout: this.totRequestsTimedout,
      cancelled: this.totRequestsCancelled,
    };
  }
}
