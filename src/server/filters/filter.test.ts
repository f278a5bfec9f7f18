import { afterEach, describe, expect, it, vi } from "vitest";
import type { RequestContext } from "../../http/context.js";
import { compose, type Filter, type TimedFilter } from "./filter.js";

/** A clock that moves only when a stage spends time, and counts its readings. */
function fakeClock() {
  let now = 1000;
  let readings = 0;
  vi.spyOn(performance, "now").mockImplementation(() => (readings++, now));
  return { spend: (ms: number) => void (now += ms), readings: () => readings };
}

function timed(name: string, spend: (ms: number) => void, ms: number, seen: Record<string, number[]>, answers = false): TimedFilter {
  const filter: Filter = (ctx, next) => {
    spend(ms);
    return answers ? Promise.resolve() : next(ctx);
  };
  return { filter, latency: { observe: (s) => void (seen[name] ??= []).push(s) } };
}

const ctx = () => ({}) as RequestContext;

afterEach(() => vi.restoreAllMocks());

describe("compose", () => {
  it("times each timed stage from its start until it hands on, one clock reading between stages that follow each other", async () => {
    const clock = fakeClock();
    const seen: Record<string, number[]> = {};
    const order: string[] = [];
    const run = compose(
      [timed("a", clock.spend, 2, seen), timed("b", clock.spend, 5, seen), timed("c", clock.spend, 1, seen)],
      async () => void order.push("last"),
    );
    await run(ctx());
    expect(seen).toEqual({ a: [0.002], b: [0.005], c: [0.001] });
    expect(order).toEqual(["last"]);
    // The first stage's start, then one reading at each hand-on.
    expect(clock.readings()).toBe(4);
  });

  it("starts a timed stage's time afresh after an untimed stage, which is not counted in either", async () => {
    const clock = fakeClock();
    const seen: Record<string, number[]> = {};
    const untimed: Filter = (c, next) => (clock.spend(7), next(c));
    const run = compose([timed("a", clock.spend, 2, seen), untimed, timed("b", clock.spend, 3, seen)], async () => undefined);
    await run(ctx());
    expect(seen).toEqual({ a: [0.002], b: [0.003] });
  });

  it("does not observe a stage that answers the request itself, nor the stages after it", async () => {
    const clock = fakeClock();
    const seen: Record<string, number[]> = {};
    const last = vi.fn(async () => undefined);
    const run = compose([timed("a", clock.spend, 2, seen), timed("b", clock.spend, 3, seen, true), timed("c", clock.spend, 1, seen)], last);
    await run(ctx());
    expect(seen).toEqual({ a: [0.002] });
    expect(last).not.toHaveBeenCalled();
  });

  it("keeps each request's stage start on its own context when requests interleave", async () => {
    const clock = fakeClock();
    const seen: Record<string, number[]> = {};
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const waits: Filter = async (c, next) => {
      if ((c as unknown as { slow?: boolean }).slow) await gate;
      clock.spend(1);
      return next(c);
    };
    const run = compose([{ filter: waits, latency: { observe: (s) => void (seen.w ??= []).push(s) } }, timed("b", clock.spend, 2, seen)], async () => undefined);
    const slow = run({ slow: true } as unknown as RequestContext);
    clock.spend(10);
    await run(ctx());
    release();
    await slow;
    // The fast request: 1 ms in w, 2 in b; the slow one waited 10 ms (and the fast one's 3) in w.
    expect(seen.w).toEqual([0.001, 0.014]);
    expect(seen.b).toEqual([0.002, 0.002]);
  });
});
