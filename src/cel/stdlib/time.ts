// Timestamps and durations as cel-go has them: RFC 3339 parsing and printing with nanoseconds,
// Go's duration syntax, range checks (years 0001–9999; durations within int64 nanoseconds), and
// calendar fields in UTC, a fixed offset (`+05:30`) or an IANA zone (`America/Los_Angeles`).
import { CelDuration, CelEvalError, CelTimestamp } from "../value.js";

export const NANOS = 1_000_000_000n;
/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in Unix seconds. */
export const minUnixSeconds = -62135596800n;
export const maxUnixSeconds = 253402300799n;
const maxInt64 = (1n << 63n) - 1n;
const minInt64 = -(1n << 63n);

export function checkedTimestamp(nanos: bigint): CelTimestamp {
  const s = floorDiv(nanos, NANOS);
  if (s < minUnixSeconds || s > maxUnixSeconds) throw new CelEvalError("timestamp overflow");
  return new CelTimestamp(nanos);
}

/** A duration from arithmetic; out of int64 nanoseconds is cel-go's "integer overflow". */
export function checkedDuration(nanos: bigint): CelDuration {
  if (nanos > maxInt64 || nanos < minInt64) throw new CelEvalError("integer overflow");
  return new CelDuration(nanos);
}

export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}

// --- civil calendar (proleptic Gregorian), days since 1970-01-01 ---
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): { y: number; m: number; d: number } {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d };
}

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9})\d*)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** `timestamp("2009-02-13T23:31:30.123Z")` as Go's time.Parse(time.RFC3339) reads it; undefined when malformed. */
export function parseTimestamp(text: string): CelTimestamp | undefined {
  const m = rfc3339.exec(text);
  if (!m) return undefined;
  const [, ys, mos, ds, hs, mis, ss, frac, , sign, oh, om] = m;
  const y = +ys!, mo = +mos!, d = +ds!, h = +hs!, mi = +mis!, s = +ss!;
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59) return undefined;
  let secs = BigInt(daysFromCivil(y, mo, d)) * 86400n + BigInt(h * 3600 + mi * 60 + s);
  if (sign) {
    const ohn = +oh!, omn = +om!;
    if (ohn > 23 || omn > 59) return undefined;
    const off = BigInt(ohn * 3600 + omn * 60);
    secs += sign === "+" ? -off : off;
  }
  const nanos = secs * NANOS + BigInt((frac ?? "").padEnd(9, "0") || "0");
  return checkedTimestamp(nanos);
}

function daysIn(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(m) ? 30 : 31;
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** RFC 3339 with nanoseconds, trailing zeros of the fraction dropped, UTC as `Z` (Go's RFC3339Nano). */
export function formatTimestamp(t: CelTimestamp): string {
  const secs = floorDiv(t.nanos, NANOS);
  const frac = Number(t.nanos - secs * NANOS);
  const days = Number(floorDiv(secs, 86400n));
  const sod = Number(secs - BigInt(days) * 86400n);
  const { y, m, d } = civilFromDays(days);
  let out = `${pad(y, 4)}-${pad(m)}-${pad(d)}T${pad(Math.floor(sod / 3600))}:${pad(Math.floor(sod / 60) % 60)}:${pad(sod % 60)}`;
  if (frac) out += "." + String(frac).padStart(9, "0").replace(/0+$/, "");
  return out + "Z";
}

const durationUnits: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  "µs": 1000n,
  "μs": 1000n,
  ms: 1_000_000n,
  s: NANOS,
  m: 60n * NANOS,
  h: 3600n * NANOS,
};

/** Go's time.ParseDuration (`1h30m`, `-1.5s`, `300ms`, `0`); undefined when malformed or out of int64 range. */
export function parseDuration(text: string): CelDuration | undefined {
  let s = text;
  let neg = false;
  if (s[0] === "-" || s[0] === "+") {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return new CelDuration(0n);
  if (s === "") return undefined;
  let total = 0n;
  const re = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  while (s !== "") {
    const m = re.exec(s);
    if (!m || (m[1] === "" && (m[2] ?? "") === "")) return undefined;
    const unit = durationUnits[m[3]!]!;
    const whole = BigInt(m[1] || "0");
    let v = whole * unit;
    const frac = m[2] ?? "";
    if (frac) v += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
    total += v;
    if (total > maxInt64 + (neg ? 1n : 0n)) return undefined;
    s = s.slice(m[0].length);
  }
  return new CelDuration(neg ? -total : total);
}

/** Shortest decimal of a double without an exponent (Go's FormatFloat(x, 'f', -1, 64)). */
export function fixedShortest(x: number): string {
  const s = String(x);
  if (!/e/i.test(s)) return s;
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s)!;
  const digits = m[2]! + (m[3] ?? "");
  const exp = +m[4]!;
  if (exp < 0) return `${m[1]}0.${"0".repeat(-exp - 1)}${digits}`;
  return m[1] + digits.padEnd(exp + 1, "0");
}

/** `string(duration)`: seconds as Go prints a float, then `s`. */
export function formatDuration(d: CelDuration): string {
  const secs = d.nanos / NANOS;
  const nanos = d.nanos - secs * NANOS;
  return fixedShortest(Number(secs) + Number(nanos) / 1e9) + "s";
}

/** Seconds east of UTC of a zone at an instant; throws CelEvalError for an unknown zone. */
function zoneOffsetSeconds(tz: string, unixSeconds: number): number {
  const colon = tz.indexOf(":");
  if (colon !== -1) {
    const hr = goAtoi(tz.slice(0, colon));
    const min = goAtoi(tz.slice(colon + 1));
    if (hr === undefined) throw new CelEvalError(`strconv.Atoi: parsing "${tz.slice(0, colon)}": invalid syntax`);
    if (min === undefined) throw new CelEvalError(`strconv.Atoi: parsing "${tz.slice(colon + 1)}": invalid syntax`);
    if (min < 0 || min > 59) throw new CelEvalError(`timezone offset minutes out of range [0, 59]: ${tz}`);
    const offset = tz[0] === "-" ? hr * 60 - min : hr * 60 + min;
    return offset * 60;
  }
  if (tz === "" || tz === "UTC") return 0;
  let fmt = zoneFormats.get(tz);
  if (!fmt) {
    try {
      fmt = new Intl.DateTimeFormat("en-US", {
        timeZone: tz,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
        era: "short",
      });
    } catch {
      throw new CelEvalError(`unknown time zone ${tz}`);
    }
    zoneFormats.set(tz, fmt);
  }
  // Intl covers ±8.64e15 ms; clamp into its range (offsets there are the zone's LMT/standard anyway).
  const ms = Math.max(-8.64e15, Math.min(8.64e15, unixSeconds * 1000));
  const parts: Record<string, string> = {};
  for (const p of fmt.formatToParts(new Date(ms))) parts[p.type] = p.value;
  let y = +parts.year!;
  if (parts.era === "BC" || parts.era === "B") y = 1 - y;
  const local = daysFromCivil(y, +parts.month!, +parts.day!) * 86400 + +parts.hour! * 3600 + +parts.minute! * 60 + +parts.second!;
  return local - Math.floor(ms / 1000);
}
const zoneFormats = new Map<string, Intl.DateTimeFormat>();

function goAtoi(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? parseInt(s, 10) : undefined;
}

export interface CivilTime {
  year: number;
  month: number; // 1-12
  day: number; // 1-31
  dayOfYear: number; // 0-based
  dayOfWeek: number; // 0 = Sunday
  hours: number;
  minutes: number;
  seconds: number;
  millis: number;
}

/** The calendar fields of an instant in a zone (UTC when absent). */
export function civilTime(t: CelTimestamp, tz?: string): CivilTime {
  let secs = Number(floorDiv(t.nanos, NANOS));
  const frac = Number(t.nanos - BigInt(secs) * NANOS);
  if (tz !== undefined) secs += zoneOffsetSeconds(tz, secs);
  const days = Math.floor(secs / 86400);
  const sod = secs - days * 86400;
  const { y, m, d } = civilFromDays(days);
  return {
    year: y,
    month: m,
    day: d,
    dayOfYear: days - daysFromCivil(y, 1, 1),
    dayOfWeek: (((days + 4) % 7) + 7) % 7,
    hours: Math.floor(sod / 3600),
    minutes: Math.floor(sod / 60) % 60,
    seconds: sod % 60,
    millis: Math.floor(frac / 1e6),
  };
}
