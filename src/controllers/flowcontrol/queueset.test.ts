import { describe, expect, it } from "vitest";
import { FlowControlMetrics } from "../../observability/flowcontrol-metrics.js";
import { gaugeTimeOf, QueueSet, realClock, type Clock, type QueuingConfig, type Request } from "./queueset.js";
import { nowNs } from "../../observability/timing-ratio-histogram.js";
import { Dealer } from "./shuffle-sharding.js";

class TestClock implements Clock {
  t = 1_000_000;
  private timers: { at: number; fn: () => void }[] = [];
  now = () => this.t;
  after(ms: number, fn: () => void) {
    this.timers.push({ at: this.t + ms, fn });
  }
  advance(ms: number) {
    this.t += ms;
    const due = this.timers.filter((x) => x.at <= this.t);
    this.timers = this.timers.filter((x) => x.at > this.t);
    for (const x of due) x.fn();
  }
}

const metrics = new FlowControlMetrics();
const levelMetrics = { setCurrentR() {}, setDispatch() {}, epochAdvanced() {}, noAccommodation() {}, reject: (fs: string, reason: string) => void metrics.reject("test", fs, reason as never) };
const detail = { user: { name: "u", groups: [] }, info: { isResourceRequest: false, path: "/x", verb: "get" } } as never;
const one = { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 };

function queueSet(cfg: Partial<QueuingConfig>, concurrencyLimit: number, clock = new TestClock()) {
  const q: QueuingConfig = { name: "test", desiredNumQueues: 8, queueLengthLimit: 5, handSize: 1, ...cfg };
  if (q.desiredNumQueues > 0) q.dealer = new Dealer(q.desiredNumQueues, q.handSize);
  const qs = new QueueSet(q, clock, levelMetrics, () => undefined);
  qs.configure(q, { concurrencyLimit, concurrencyDenominator: concurrencyLimit });
  return { qs, clock };
}
const start = (qs: QueueSet, flow: bigint, fs = "fs") => qs.startRequest(one, flow, String(flow), fs, metrics.series("test", fs), detail).request;

describe("QueueSet", () => {
  it("dispatches the other flow's request before the flooding flow's backlog (fair queuing)", async () => {
    const { qs, clock } = queueSet({}, 1);
    const flood: Request[] = [];
    for (let i = 0; i < 4; i++) flood.push(start(qs, 0n)!); // hand of queue 0
    expect(flood[0]!.decision).toBe("execute");
    expect(flood.slice(1).every((r) => r.decision === undefined)).toBe(true);
    clock.advance(500);
    const other = start(qs, 3n)!; // another queue
    expect(other.decision).toBe(undefined);
    clock.advance(500);
    flood[0]!.finish();
    // The flood's queue is charged for the second its request held the seat: the other goes first.
    expect(other.decision).toBe("execute");
    expect(flood[1]!.decision).toBe(undefined);
    clock.advance(1);
    other.finish();
    expect(flood[1]!.decision).toBe("execute");
    expect(await other.wait()).toBe(true);
  });

  it("refuses a request when the seats are taken and its queue is at its length limit", () => {
    const { qs } = queueSet({ queueLengthLimit: 2 }, 1);
    expect(start(qs, 0n)?.decision).toBe("execute");
    expect(start(qs, 0n)).toBeDefined();
    expect(start(qs, 0n)).toBeDefined();
    expect(start(qs, 0n)).toBeUndefined();
    expect(qs.dump()).toMatchObject({ waiting: 2, executing: 1, rejected: 1 });
  });

  it("takes a cancelled request out of its queue and counts it rejected and cancelled", async () => {
    const { qs } = queueSet({}, 1);
    start(qs, 0n);
    const waiting = start(qs, 0n)!;
    const w = waiting.wait();
    waiting.cancel();
    expect(await w).toBe(false);
    expect(qs.dump()).toMatchObject({ waiting: 0, executing: 1, rejected: 1, cancelled: 1 });
  });

  it("dispatches at once without queues when exempt, and refuses beyond the limit without queues", () => {
    const exempt = queueSet({ desiredNumQueues: -1 }, 0).qs;
    for (let i = 0; i < 5; i++) expect(start(exempt, 0n)?.decision).toBe("execute");
    const reject = queueSet({ desiredNumQueues: 0 }, 2).qs;
    expect(start(reject, 0n)).toBeDefined();
    expect(start(reject, 0n)).toBeDefined();
    expect(start(reject, 0n)).toBeUndefined();
    expect(reject.dump()).toMatchObject({ executing: 2, rejected: 1 });
  });

  it("holds a write's final seats for its additional latency", () => {
    const { qs, clock } = queueSet({}, 2);
    const wide = qs.startRequest({ initialSeats: 1, finalSeats: 2, additionalLatencyMs: 50 }, 0n, "", "fs", metrics.series("test", "fs"), detail).request!;
    expect(wide.decision).toBe("execute");
    wide.finish();
    const next = start(qs, 1n)!;
    expect(next.decision).toBe(undefined);
    clock.advance(50);
    expect(next.decision).toBe("execute");
  });
});

describe("gaugeTimeOf", () => {
  it("turns a real clock's reading into the gauges' time, and leaves another clock's to the gauges", () => {
    const before = nowNs();
    const t = gaugeTimeOf(realClock, realClock.now())!;
    const after = nowNs();
    // Within the double's rounding of the epoch milliseconds (well under a microsecond).
    expect(t).toBeGreaterThan(before - 1_000);
    expect(t).toBeLessThan(after + 1_000);
    expect(gaugeTimeOf(new TestClock(), 1_000_000)).toBeUndefined();
  });
});
