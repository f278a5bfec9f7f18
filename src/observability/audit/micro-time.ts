// Wall-clock time in microseconds (metav1.MicroTime, the precision of audit timestamps). Date.now()
// has milliseconds only, so the sub-millisecond part comes from the monotonic clock, re-anchored
// to the wall clock whenever the two drift apart by a millisecond (a clock step, NTP slewing).

let baseMs = Date.now();
let basePerf = performance.now();

/** Microseconds since the epoch. */
export function microNow(): number {
  const wall = Date.now();
  let ms = baseMs + (performance.now() - basePerf);
  if (Math.abs(ms - wall) >= 1) {
    baseMs = wall;
    basePerf = performance.now();
    ms = wall;
  }
  return Math.floor(ms * 1000);
}

let cachedSecond = -1;
let cachedPrefix = "";

/** RFC 3339 in UTC with six fractional digits, as MicroTime is written in JSON. */
export function formatMicroTime(us: number): string {
  // Every event has two stamps and most fall in the same second: its text is made once a second.
  const second = Math.floor(us / 1_000_000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 20);
  }
  return cachedPrefix + String(us - second * 1_000_000).padStart(6, "0") + "Z";
}

/** Microseconds since the epoch of a MicroTime's text (formatMicroTime's inverse). */
export function parseMicroTime(text: string): number {
  const m = /\.(\d{1,9})Z$/.exec(text);
  const whole = Date.parse(text.replace(/\.\d+Z$/, "Z"));
  return whole * 1000 + (m ? Number(m[1]!.padEnd(6, "0").slice(0, 6)) : 0);
}

/** Go's time.RFC3339Nano of the local time (trailing fractional zeros dropped), as the legacy log line prints it. */
export function formatRFC3339Nano(us: number): string {
  const ms = Math.floor(us / 1000);
  const d = new Date(ms);
  const offsetMin = -d.getTimezoneOffset();
  const local = new Date(ms + offsetMin * 60_000).toISOString().slice(0, 19);
  const frac = (String(ms % 1000).padStart(3, "0") + String(us - ms * 1000).padStart(3, "0")).replace(/0+$/, "");
  const zone = offsetMin === 0 ? "Z" : `${offsetMin > 0 ? "+" : "-"}${pad2(Math.floor(Math.abs(offsetMin) / 60))}:${pad2(Math.abs(offsetMin) % 60)}`;
  return `${local}${frac ? "." + frac : ""}${zone}`;
}

const pad2 = (n: number) => String(n).padStart(2, "0");
