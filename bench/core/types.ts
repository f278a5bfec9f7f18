// The shape of a benchmark and of its results. Every figure is a ratio: kapi's figure divided by
// an anchor's figure measured in the same run, on the same machine, alternately (A B A B …), so a
// noisy or slow machine moves both and the ratio stays meaningful.
import type { BenchContext } from "./context.js";

/** One measurement of one side (kapi or anchor) in one pair. */
export interface Measurement {
  value: number;
  /** Load client CPU as % of one core (near 100 means the client may have been the limit). */
  clientCpuPct?: number;
  /** The measured server's CPU as % of one core. */
  serverCpuPct?: number;
  /** The server's CPU µs per operation over the measured window: from the rate (throughput cases, cpu-per-op.ts), or as the case counted it (LIST: per traversal). */
  serverCpuUsPerOp?: number;
  /** Anything else worth keeping: error counts, latencies, sizes. */
  detail?: Record<string, number | string>;
}

export interface Goal {
  op: ">=" | "<=";
  value: number;
  /** The goal relative to another benchmark's median ratio (update: ≥ 0.9 × create). */
  relativeTo?: { bench: string; factor: number };
  text: string;
}

export interface Session {
  api(pair: number): Promise<Measurement>;
  anchor(pair: number): Promise<Measurement>;
  close(): Promise<void>;
  /** Facts about the set-up worth printing with the result (sizes, rates chosen, fallbacks). */
  notes: string[];
}

export interface BenchCase {
  name: string;
  title: string;
  anchorTitle: string;
  /** Unit of both figures, e.g. "req/s" or "ms". */
  unit: string;
  /** "higher" when a larger figure is better (throughput), "lower" for times and sizes. */
  better: "higher" | "lower";
  goal: Goal;
  /** An extra absolute check printed as a note (start-up ≤ 150 ms). */
  absoluteNote?: (apiMedian: number) => string;
  setup(ctx: BenchContext): Promise<Session>;
}

export interface Pair {
  api: Measurement;
  anchor: Measurement;
  ratio: number;
  /** kapi's server CPU per operation over the anchor's (lower is better); throughput cases. */
  cpuRatio?: number;
}

export interface Stats {
  median: number;
  min: number;
  max: number;
}

export interface BenchResult {
  name: string;
  title: string;
  anchorTitle: string;
  unit: string;
  better: "higher" | "lower";
  goal: Goal;
  /** The goal's value after resolving relativeTo (of the CPU ratio when judgedBy "cpu"); undefined when it could not be resolved. */
  goalValue?: number;
  pairs: Pair[];
  api?: Stats;
  anchor?: Stats;
  ratio?: Stats;
  /** Over the pairs: kapi's server CPU per operation over the anchor's (throughput cases). */
  cpuRatio?: Stats;
  /**
   * What the goal is checked on: the figure's ratio, or (the load client past 90% of a core on a
   * throughput case) the CPU-per-operation ratio against the goal said of CPU (cpu-per-op.ts).
   */
  judgedBy?: "ratio" | "cpu";
  pass?: boolean;
  clientCpuPctMax?: number;
  notes: string[];
  error?: string;
  durationMs: number;
}
