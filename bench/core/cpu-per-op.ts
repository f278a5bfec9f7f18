// Server CPU per operation: the figure that still measures the server when the load client is
// the bottleneck (issue 26). From the server process's own CPU counters over the measured window
// (Measurement.serverCpuPct) and the operations it served in it (the throughput figure).
import type { BenchCase, BenchResult, Goal, Measurement } from "./types.js";

/** The load client's CPU (% of one core) from which its figure may be the client's limit. */
export const clientSaturatedPct = 90;

/** Whether the case's figure is operations per second (the CPU per op is defined for those only). */
export function isThroughput(c: Pick<BenchCase, "unit" | "better">): boolean {
  return c.better === "higher" && c.unit.endsWith("/s");
}

/** Server CPU µs per operation of one measurement; undefined when it has no server CPU or no rate. */
export function cpuUsPerOp(m: Measurement): number | undefined {
  if (!m.serverCpuPct || !(m.value > 0)) return undefined;
  return ((m.serverCpuPct / 100) * 1e6) / m.value;
}

/**
 * The goal said of CPU per operation. A throughput goal (kapi ≥ g × the anchor's rate): kapi ≤
 * 1/g × the anchor's server CPU per operation (watch fan-out: ≥ 0.8 ⇒ ≤ 1.25). A time goal (kapi
 * ≤ g × the anchor's time per operation, one operation at a time: a LIST traversal): ≤ g × its CPU.
 */
export function cpuGoalValue(goal: Goal, better: BenchCase["better"], results: readonly BenchResult[]): number | undefined {
  if (!goal.relativeTo) return better === "lower" ? goal.value : 1 / goal.value;
  const other = results.find((o) => o.name === goal.relativeTo!.bench)?.cpuRatio;
  return other ? other.median / goal.relativeTo.factor : undefined;
}
