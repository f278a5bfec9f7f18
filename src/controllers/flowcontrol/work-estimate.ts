// How much of a priority level's concurrency a request takes (upstream: flowcontrol/request
// WorkEstimate): seats while it executes, and possibly more seats for a while after it finished
// (a write whose events go out to many watches).
export interface WorkEstimate {
  initialSeats: number;
  finalSeats: number;
  /** How long the final seats stay taken after the request finished, in ms. */
  additionalLatencyMs: number;
  /** For a write: the watches its events reach (what the estimate was made from). */
  watchCount?: number;
}

export function maxSeats(we: WorkEstimate): number {
  return Math.max(we.initialSeats, we.finalSeats);
}
