// Median/min/max, and the goal check (a mark in the report, never an exit code).
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

export function mark(pass: boolean | undefined): string {
  return pass === undefined ? "–" : pass ? "✓" : "✗";
}
