// Median/min/max, and the goal check (a mark in the report, never an exit code).
import { cpuGoalValue } from "./cpu-per-op.js";
import type { BenchResult, Stats } from "./types.js";

export function stats(xs: number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { median, min: s[0], max: s[s.length - 1] };
}

/** Resolve relative goals against the other results of the same run and mark pass/fail. */
export function judge(results: BenchResult[]): void {
  for (const r of results) {
    if (r.judgedBy === "cpu" && r.cpuRatio) {
      r.goalValue = cpuGoalValue(r.goal, r.better, results);
      r.pass = r.goalValue === undefined ? undefined : r.cpuRatio.median <= r.goalValue;
      continue;
    }
    r.goalValue = r.goal.value;
    if (r.goal.relativeTo) {
      const other = results.find((o) => o.name === r.goal.relativeTo!.bench);
      r.goalValue = other?.ratio ? other.ratio.median * r.goal.relativeTo.factor : undefined;
    }
    if (!r.ratio || r.goalValue === undefined) {
      r.pass = undefined;
      continue;
    }
    r.pass = r.goal.op === ">=" ? r.ratio.median >= r.goalValue : r.ratio.median <= r.goalValue;
  }
}

/** The judged figure and its goal as printed: "ratio 0.61 goal ≥ 0.8" or "server CPU/op ratio 1.1 goal ≤ 1.25". */
export function judgedText(r: BenchResult, fmt: (x: number) => string): string {
  const range = (s: Stats) => `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`;
  if (r.judgedBy === "cpu" && r.cpuRatio) {
    return `server CPU/op ratio ${range(r.cpuRatio)}  goal ≤ ${r.goalValue === undefined ? "?" : fmt(r.goalValue)} (the load client was saturated; figure goal ${r.goal.text})`;
  }
  const goal = r.goal.relativeTo && r.goalValue !== undefined ? `${r.goal.text} (= ${r.goal.op} ${fmt(r.goalValue)})` : r.goal.text;
  const cpu = r.cpuRatio ? `; server CPU/op ratio ${fmt(r.cpuRatio.median)}` : "";
  return `ratio ${r.ratio ? range(r.ratio) : "failed"}  goal ${goal}${cpu}`;
}

export function mark(pass: boolean | undefined): string {
  return pass === undefined ? "–" : pass ? "✓" : "✗";
}
