// Work in seat-seconds, as upstream counts it: integers of 1e-8 seat-second (upstream's
// SeatSeconds, a uint64 of that unit), so that virtual times add up exactly. A JavaScript number
// holds integers exactly up to 2^53, ~9e7 seat-seconds: the queue sets move their virtual clock
// back (an "epoch advance") long before that.
export const ssScale = 1e8;
/** Past this the virtual clock is moved back by `rDecrement`. */
export const rDecrement = 2 ** 51;
export const highR = rDecrement + rDecrement / 2;
export const maxSeatSeconds = Number.MAX_SAFE_INTEGER;

/** `seats` held for `ms` milliseconds. */
export function seatsTimesMs(seats: number, ms: number): number {
  return Math.round(seats * ms * (ssScale / 1000));
}

export function seatSecondsToFloat(ss: number): number {
  return ss / ssScale;
}

/** How long `ss` takes on `seats` seats, in ms. */
export function msPerSeat(ss: number, seats: number): number {
  return (ss / seats) * (1000 / ssScale);
}

/** Upstream's rendering: "%d.%08dss". */
export function formatSeatSeconds(ss: number): string {
  const quo = Math.floor(ss / ssScale);
  const rem = ss - quo * ssScale;
  return `${quo}.${String(rem).padStart(8, "0")}ss`;
}
