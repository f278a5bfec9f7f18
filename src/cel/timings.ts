// How long CEL work took, for the apiserver_cel_* histograms (observability/cel-metrics.ts, by
// shape). Handed down with the work rather than held globally: every server in a process reports
// only its own.
export interface CelTimings {
  /** The rules of one schema node were compiled, taking this long. */
  compiled(seconds: number): void;
  /** The rules of one schema node (and of the nodes below it) were evaluated on one value, taking this long. */
  evaluated(seconds: number): void;
}
