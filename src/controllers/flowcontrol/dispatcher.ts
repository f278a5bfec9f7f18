// API Priority and Fairness as configured (upstream: flowcontrol/apf_controller.go and
// apf_filter.go, release 1.34): the FlowSchemas in matching order and one queue set per
// priority level, digested as a whole from every FlowSchema and PriorityLevelConfiguration
// whenever one changes; each request is classified (the first FlowSchema it matches, by
// precedence then name), its flow distinguished (by user, by namespace, or not), and handed to
// its level's queue set. The server's seats (--max-requests-inflight plus
// --max-mutating-requests-inflight) are divided among the levels by their nominal shares; every
// 10 s the levels lend and borrow them by their recent seat demand.
import { createHash } from "node:crypto";
import type { UserInfo } from "../../apimachinery/user.js";
import type { RequestInfo } from "../../http/request-info.js";
import type { FlowControlMetrics, FlowSeries } from "../../observability/flowcontrol-metrics.js";
import {
  catchAllName,
  exemptName,
  mandatoryFlowSchemas,
  mandatoryPriorityLevels,
  type FlowSchema,
  type FlowSchemaCondition,
  type PriorityLevelConfiguration,
} from "../../types/flowcontrol-bootstrap.js";
import { computeConcurrencyAllocation, type AllocItem } from "./conc-alloc.js";
import { Integrator } from "./integrator.js";
import { QueueSet, realClock, type Clock, type QueuingConfig, type Request, type RequestDetail } from "./queueset.js";
import { matchesFlowSchema } from "./rules.js";
import { Dealer } from "./shuffle-sharding.js";
import type { WorkEstimate } from "./work-estimate.js";

/** One level's largest request, in seats: at most 15% of the level, and no more than a queue's share. */
const maxSeatsPercent = 0.15;
export const borrowingAdjustmentMs = 10_000;
const seatDemandSmoothing = 0.977;

interface SeatDemandStats {
  avg: number;
  stdDev: number;
  highWatermark: number;
  smoothed: number;
}

export interface PriorityLevelState {
  pl: PriorityLevelConfiguration;
  qCfg: QueuingConfig;
  queues: QueueSet | undefined;
  /** No longer configured: kept until its requests are done. */
  quiescing: boolean;
  seatDemand: Integrator;
  stats: SeatDemandStats;
  nominalCL: number;
  minCL: number;
  maxCL: number;
  currentCL: number;
  maxSeats: number;
}

/** A Dangling condition to write to a FlowSchema's status. */
export interface FlowSchemaStatusUpdate {
  name: string;
  condition: FlowSchemaCondition;
}

/** Where a request was classified, for its response headers and the debug dump. */
export interface Classification {
  fs: FlowSchema;
  pl: PriorityLevelConfiguration;
  flowDistinguisher: string;
}

export interface DispatcherOptions {
  /** --max-requests-inflight plus --max-mutating-requests-inflight. */
  serverConcurrencyLimit: number;
  metrics: FlowControlMetrics;
  clock?: Clock;
}

export class Dispatcher {
  private flowSchemas: FlowSchema[] = [];
  private levels = new Map<string, PriorityLevelState>();
  private nominalCLSum = 0;
  readonly clock: Clock;
  /** Flow hashes, kept: a flow's requests come again and again (bounded by clearing). */
  private readonly hashes = new Map<string, bigint>();
  /** Told when a priority level no longer configured became idle: the configuration should be digested again. */
  onQuiescedIdle: (() => void) | undefined;

  constructor(private readonly o: DispatcherOptions) {
    this.clock = o.clock ?? realClock;
    // Before the objects are read, the mandatory configuration classifies every request.
    this.digest([], []);
  }

  /** Digests the whole configuration; returns the FlowSchema conditions to write. */
  digest(pls: readonly PriorityLevelConfiguration[], fss: readonly FlowSchema[]): FlowSchemaStatusUpdate[] {
    const next = new Map<string, PriorityLevelState>();
    let shareSum = 0;
    for (const pl of pls) {
      const qCfg = queuingConfigOf(pl);
      if (!qCfg) continue; // a broken spec validation would have refused: ignored, as upstream does
      const state = this.levels.get(pl.metadata.name) ?? this.newState(pl, qCfg);
      state.pl = pl;
      state.qCfg = qCfg;
      state.quiescing = false;
      next.set(pl.metadata.name, state);
      shareSum += nominalShares(pl);
    }
    const updates = this.digestFlowSchemas(fss, next);
    // Levels no longer configured stay until their requests are done; the mandatory two always.
    for (const [name, state] of this.levels) {
      if (next.has(name)) continue;
      const mandatory = name === exemptName || name === catchAllName;
      if (!mandatory) {
        if (!state.queues || state.queues.isIdle()) continue;
        state.quiescing = true;
      }
      next.set(name, state);
      shareSum += nominalShares(state.pl);
    }
    for (const proto of mandatoryPriorityLevels()) {
      if (next.has(proto.metadata.name)) continue;
      const state = this.newState(proto, queuingConfigOf(proto)!);
      next.set(proto.metadata.name, state);
      shareSum += nominalShares(proto);
    }
    this.finishReconfiguration(next, shareSum);
    this.levels = next;
    return updates;
  }

  private newState(pl: PriorityLevelConfiguration, qCfg: QueuingConfig): PriorityLevelState {
    return {
      pl,
      qCfg,
      queues: undefined,
      quiescing: false,
      seatDemand: new Integrator(() => this.clock.now()),
      stats: { avg: 0, stdDev: 0, highWatermark: 0, smoothed: 0 },
      nominalCL: 0,
      minCL: 0,
      maxCL: 0,
      currentCL: 0,
      maxSeats: 0,
    };
  }

  private digestFlowSchemas(fss: readonly FlowSchema[], levels: ReadonlyMap<string, PriorityLevelState>): FlowSchemaStatusUpdate[] {
    const updates: FlowSchemaStatusUpdate[] = [];
    const seq: FlowSchema[] = [];
    for (const fs of fss) {
      const plName = fs.spec.priorityLevelConfiguration.name;
      const found = levels.has(plName);
      const update = danglingUpdate(fs, !found, plName, this.clock.now());
      if (update) updates.push(update);
      if (found) seq.push(fs);
    }
    seq.sort((a, b) => a.spec.matchingPrecedence - b.spec.matchingPrecedence || (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
    const [exempt, catchAll] = mandatoryFlowSchemas();
    if (!seq.some((f) => f.metadata.name === exemptName)) seq.unshift(exempt!);
    if (!seq.some((f) => f.metadata.name === catchAllName)) seq.push(catchAll!);
    this.flowSchemas = seq;
    this.hashes.clear();
    return updates;
  }

  /** Each level's nominal, lower and upper limits from the shares; then the current limits. */
  private finishReconfiguration(levels: Map<string, PriorityLevelState>, shareSum: number): void {
    const serverCL = this.o.serverConcurrencyLimit;
    let nominalSum = 0;
    let queueRoom = 0;
    for (const [name, s] of levels) {
      const { lendablePercent, borrowingLimitPercent } = limitPercents(s.pl);
      const nominal = shareSum > 0 ? Math.ceil((serverCL * nominalShares(s.pl)) / shareSum) : 0;
      const lendable = lendablePercent !== undefined ? Math.round((nominal * lendablePercent) / 100) : 0;
      const borrowing = borrowingLimitPercent !== undefined ? Math.round((nominal * borrowingLimitPercent) / 100) : serverCL;
      this.o.metrics.setLimits(name, nominal, nominal - lendable, nominal + borrowing);
      s.nominalCL = nominal;
      s.minCL = nominal - lendable;
      s.maxCL = nominal + borrowing;
      nominalSum += nominal;
      if (s.qCfg.desiredNumQueues > 0) queueRoom += s.qCfg.desiredNumQueues * s.qCfg.queueLengthLimit;
      if (s.qCfg.desiredNumQueues > 0) s.maxSeats = Math.max(1, Math.min(Math.ceil(nominal * maxSeatsPercent), Math.trunc(nominal / s.qCfg.handSize)));
      else s.maxSeats = 0;
      if (!s.queues) {
        s.stats = { avg: 0, stdDev: 0, highWatermark: 0, smoothed: 0 };
        s.currentCL = nominal - Math.trunc(lendable / 2);
      }
    }
    this.nominalCLSum = nominalSum;
    this.o.metrics.setRequestKindLimits(queueRoom, nominalSum);
    this.updateBorrowing(levels);
  }

  /**
   * Lending and borrowing (every 10 s, and after each digest): a level keeps at least its lower
   * limit and what it used lately (up to its nominal limit); the rest goes out in proportion to
   * each level's smoothed demand, within its upper limit.
   */
  updateBorrowing(levels: Map<string, PriorityLevelState> = this.levels): void {
    const items: AllocItem[] = [];
    const itemOf = new Map<string, number>();
    const exemptCL = new Map<string, number>();
    let minCLSum = 0;
    let minCurrentCLSum = 0;
    let remaining = this.nominalCLSum;
    for (const [name, s] of levels) {
      const obs = s.seatDemand.reset();
      s.stats.highWatermark = Math.round(obs.max);
      if (obs.duration > 0) {
        const deviation = Number.isNaN(obs.deviation) ? 0 : obs.deviation;
        s.stats.avg = obs.average;
        s.stats.stdDev = deviation;
        const envelope = obs.average + deviation;
        s.stats.smoothed = Math.max(envelope, seatDemandSmoothing * s.stats.smoothed + (1 - seatDemandSmoothing) * envelope);
      }
      if (s.pl.spec.type === "Exempt") {
        const minCurrent = Math.max(s.minCL, s.stats.highWatermark);
        exemptCL.set(name, minCurrent);
        remaining -= minCurrent;
      } else {
        const minCurrent = Math.max(s.minCL, Math.min(s.nominalCL, s.stats.highWatermark));
        itemOf.set(name, items.length);
        items.push({ lowerBound: minCurrent, upperBound: s.maxCL, target: Math.max(minCurrent, s.stats.smoothed) });
        minCLSum += s.minCL;
        minCurrentCLSum += minCurrent;
      }
    }
    let allocs: number[] | undefined;
    let shareFrac = 0;
    if (remaining <= minCLSum) {
      this.o.metrics.setFairFrac(0);
    } else if (remaining <= minCurrentCLSum) {
      shareFrac = (remaining - minCLSum) / (minCurrentCLSum - minCLSum);
      this.o.metrics.setFairFrac(0);
    } else {
      try {
        const r = computeConcurrencyAllocation(this.nominalCLSum, items);
        allocs = r.allocs;
        this.o.metrics.setFairFrac(r.fairProp);
      } catch {
        allocs = [...levels.values()].filter((s) => s.pl.spec.type !== "Exempt").map((s) => s.currentCL);
      }
    }
    for (const [name, s] of levels) {
      const idx = itemOf.get(name);
      let currentCL: number;
      if (idx === undefined) currentCL = exemptCL.get(name)!;
      else if (remaining <= minCLSum) currentCL = s.minCL;
      else if (remaining <= minCurrentCLSum) {
        const minCurrent = Math.max(s.minCL, Math.min(s.nominalCL, s.stats.highWatermark));
        currentCL = s.minCL + Math.round((minCurrent - s.minCL) * shareFrac);
      } else currentCL = Math.round(allocs![idx]!);
      s.currentCL = currentCL;
      this.o.metrics.noteAdjustment(name, {
        highWatermark: s.stats.highWatermark,
        average: s.stats.avg,
        stdDev: s.stats.stdDev,
        smoothed: s.stats.smoothed,
        target: idx === undefined ? 0 : items[idx]!.target,
        currentLimit: currentCL,
      });
      const denominator = currentCL > 0 ? currentCL : Math.max(1, Math.round(this.o.serverConcurrencyLimit / 10));
      s.queues ??= new QueueSet(s.qCfg, this.clock, this.o.metrics.level(name), (seats, now) => s.seatDemand.set(seats, now));
      s.queues.configure(s.qCfg, { concurrencyLimit: currentCL, concurrencyDenominator: denominator });
    }
  }

  /** The first FlowSchema the request matches (catch-all when none does) and its flow. */
  classify(info: RequestInfo, user: UserInfo): Classification & { state: PriorityLevelState; hash: bigint } {
    let fs: FlowSchema | undefined;
    for (const candidate of this.flowSchemas) {
      if (matchesFlowSchema(info, user, candidate)) {
        fs = candidate;
        break;
      }
    }
    fs ??= this.flowSchemas.find((f) => f.metadata.name === catchAllName)!;
    const state = this.levels.get(fs.spec.priorityLevelConfiguration.name)!;
    let flowDistinguisher = "";
    let hash = 0n;
    if (state.qCfg.desiredNumQueues > 1) {
      const method = fs.spec.distinguisherMethod?.type;
      flowDistinguisher = method === "ByUser" ? user.name : method === "ByNamespace" ? info.namespace : "";
      hash = this.flowHash(fs.metadata.name, flowDistinguisher);
    }
    return { fs, pl: state.pl, flowDistinguisher, state, hash };
  }

  /** The first 8 bytes, little-endian, of SHA-256 over the schema's name, a zero byte and the distinguisher. */
  private flowHash(fsName: string, distinguisher: string): bigint {
    const key = `${fsName}\u0000${distinguisher}`;
    let h = this.hashes.get(key);
    if (h === undefined) {
      h = createHash("sha256").update(key, "utf8").digest().readBigUInt64LE(0);
      if (this.hashes.size >= 10_000) this.hashes.clear();
      this.hashes.set(key, h);
    }
    return h;
  }

  /** Hands a classified request to its level: a request to wait for, or undefined when refused at once. */
  start(c: ReturnType<Dispatcher["classify"]>, we: WorkEstimate, series: FlowSeries, detail: RequestDetail, queueNote?: (inQueue: boolean) => void): Request | undefined {
    const r = c.state.queues!.startRequest(we, c.hash, c.flowDistinguisher, c.fs.metadata.name, series, detail, queueNote);
    if (!r.request && r.idle) this.maybeReap(c.state);
    return r.request;
  }

  /** A request of `state` finished (at `now` of the clock, when the caller read it). */
  finished(state: PriorityLevelState, req: Request, now?: number): void {
    if (req.finish(now)) this.maybeReap(state);
  }

  private maybeReap(state: PriorityLevelState): void {
    if (state.quiescing && state.queues?.isIdle()) this.onQuiescedIdle?.();
  }

  /** A level's largest request in seats (0: not a queuing level). */
  maxSeats(plName: string): number {
    return this.levels.get(plName)?.maxSeats ?? 0;
  }

  /** The levels, for the debug dump. */
  priorityLevels(): ReadonlyMap<string, PriorityLevelState> {
    return this.levels;
  }
}

function nominalShares(pl: PriorityLevelConfiguration): number {
  return (pl.spec.limited ? pl.spec.limited.nominalConcurrencyShares : pl.spec.exempt?.nominalConcurrencyShares) ?? 0;
}

function limitPercents(pl: PriorityLevelConfiguration): { lendablePercent?: number; borrowingLimitPercent?: number } {
  if (pl.spec.limited) return { lendablePercent: pl.spec.limited.lendablePercent, borrowingLimitPercent: pl.spec.limited.borrowingLimitPercent };
  return { lendablePercent: pl.spec.exempt?.lendablePercent };
}

/** The queuing of a level, or undefined when its spec is broken (upstream ignores such a level). */
function queuingConfigOf(pl: PriorityLevelConfiguration): QueuingConfig | undefined {
  const name = pl.metadata.name;
  const { type, limited, exempt } = pl.spec;
  if ((type === "Limited") !== (limited !== undefined && limited !== null)) return undefined;
  if ((type === "Exempt") !== (exempt !== undefined && exempt !== null)) return undefined;
  if ((type === "Exempt") !== (name === exemptName)) return undefined;
  if (!limited) return { name, desiredNumQueues: -1, queueLengthLimit: 0, handSize: 0 };
  const q = limited.limitResponse.queuing;
  if ((limited.limitResponse.type === "Reject") !== !q) return undefined;
  if (!q) return { name, desiredNumQueues: 0, queueLengthLimit: 0, handSize: 0 };
  try {
    return { name, desiredNumQueues: q.queues, queueLengthLimit: q.queueLengthLimit, handSize: q.handSize, dealer: new Dealer(q.queues, q.handSize) };
  } catch {
    return undefined;
  }
}

/** The Dangling condition a FlowSchema should have, when it has not got it yet. */
function danglingUpdate(fs: FlowSchema, dangling: boolean, plName: string, now: number): FlowSchemaStatusUpdate | undefined {
  const current = fs.status?.conditions?.find((c) => c.type === "Dangling");
  const status = dangling ? "True" : "False";
  const reason = dangling ? "NotFound" : "Found";
  const message = dangling
    ? `This FlowSchema references the PriorityLevelConfiguration object named "${plName}" but there is no such object`
    : `This FlowSchema references the PriorityLevelConfiguration object named "${plName}" and it exists`;
  if (current && current.status === status && current.reason === reason && current.message === message) return undefined;
  return { name: fs.metadata.name, condition: { type: "Dangling", status, lastTransitionTime: new Date(Math.floor(now / 1000) * 1000).toISOString().replace(".000Z", "Z"), reason, message } };
}
