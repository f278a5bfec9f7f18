// The bench's judging rule (issue 26): a throughput figure is judged as a ratio of rates, unless
// the load client was saturated; then kapi's server CPU per operation over the anchor's is judged
// against the goal said of CPU (≥ g of the anchor's rate ⇒ ≤ 1/g of its CPU per operation).
import { describe, expect, it } from "vitest";
import { cpuUsPerOp, isThroughput } from "../bench/core/cpu-per-op.js";
import { judge, judgedText } from "../bench/core/stats.js";
import { fmt } from "../bench/core/run.js";
import type { BenchResult, Stats } from "../bench/core/types.js";

const s = (median: number): Stats => ({ median, min: median, max: median });

function result(name: string, over: Partial<BenchResult>): BenchResult {
  return { name, title: name, anchorTitle: "", unit: "req/s", better: "higher", goal: { op: ">=", value: 0.8, text: "≥ 0.8" }, pairs: [], notes: [], durationMs: 0, ...over };
}

describe("server CPU per operation", () => {
  it("is the server's CPU time over the operations it served, for rates only", () => {
    expect(cpuUsPerOp({ value: 2000, serverCpuPct: 100 })).toBe(500);
    expect(cpuUsPerOp({ value: 2000, serverCpuPct: 0 })).toBeUndefined();
    expect(cpuUsPerOp({ value: 0, serverCpuPct: 50 })).toBeUndefined();
    expect(isThroughput({ unit: "writes/s", better: "higher" })).toBe(true);
    expect(isThroughput({ unit: "ms", better: "lower" })).toBe(false);
  });
});

describe("judge", () => {
  it("checks the rate ratio when the client kept up, and the CPU ratio against 1/goal when it did not", () => {
    const kept = result("watch", { ratio: s(0.7), cpuRatio: s(1.1), judgedBy: "ratio" });
    const saturated = result("get", { ratio: s(0.7), cpuRatio: s(1.1), judgedBy: "cpu" });
    const tooCostly = result("get2", { ratio: s(0.9), cpuRatio: s(1.3), judgedBy: "cpu" });
    judge([kept, saturated, tooCostly]);
    expect([kept.pass, kept.goalValue]).toEqual([false, 0.8]);
    expect([saturated.pass, saturated.goalValue]).toEqual([true, 1.25]);
    expect(tooCostly.pass).toBe(false);
    expect(judgedText(saturated, fmt)).toContain("server CPU/op ratio 1.10");
    expect(judgedText(saturated, fmt)).toContain("goal ≤ 1.25");
    expect(judgedText(kept, fmt)).toContain("ratio 0.700");
  });

  it("says a time goal of CPU per operation as it is: the same factor, not its inverse", () => {
    const goal = { op: "<=" as const, value: 1.2, text: "≤ 1.2" };
    const within = result("list", { unit: "ms", better: "lower", goal, ratio: s(1.5), cpuRatio: s(1.1), judgedBy: "cpu" });
    const over = result("list2", { unit: "ms", better: "lower", goal, ratio: s(1.1), cpuRatio: s(1.3), judgedBy: "cpu" });
    judge([within, over]);
    expect([within.pass, within.goalValue]).toEqual([true, 1.2]);
    expect([over.pass, over.goalValue]).toEqual([false, 1.2]);
  });

  it("resolves a relative goal against the other case's figure of the same kind", () => {
    const goal = { op: ">=" as const, value: 1.8, relativeTo: { bench: "create", factor: 0.9 }, text: "≥ 0.9 × create ratio" };
    const create = result("create", { ratio: s(2), cpuRatio: s(3), judgedBy: "ratio" });
    const byRatio = result("update", { goal, ratio: s(1.7), cpuRatio: s(3.2), judgedBy: "ratio" });
    const byCpu = result("update", { goal, ratio: s(1.7), cpuRatio: s(3.2), judgedBy: "cpu" });
    judge([create, byRatio]);
    expect(byRatio.goalValue).toBeCloseTo(1.8);
    expect(byRatio.pass).toBe(false);
    judge([create, byCpu]);
    expect(byCpu.goalValue).toBeCloseTo(3 / 0.9);
    expect(byCpu.pass).toBe(true);
  });
});
