// Human-readable approximations of elapsed time, matching the output of
// k8s.io/apimachinery/pkg/util/duration (HumanDuration / ShortHumanDuration).

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const GO_ZERO_TIME = Date.parse("0001-01-01T00:00:00Z");

/** Truncating integer division of milliseconds by a unit (like Go's int(d / unit)). */
function units(ms: number, unit: number): number {
  return Math.trunc(ms / unit);
}

/** Two-to-three significant figure rendering of a duration given in milliseconds. */
export function humanDuration(ms: number): string {
  const seconds = units(ms, SECOND);
  // Up to ~2s of clock skew into the future still counts as "now".
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;

  const minutes = units(ms, MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;

  const hours = units(ms, HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;

  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;

  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/** Single-unit rendering of a duration given in milliseconds. */
export function shortHumanDuration(ms: number): string {
  const seconds = units(ms, SECOND);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60) return `${seconds}s`;
  const minutes = units(ms, MINUTE);
  if (minutes < 60) return `${minutes}m`;
  const hours = units(ms, HOUR);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(ms / HOUR / 24 / 365)}y`;
}

/**
 * Parses a metav1.Time / MicroTime value. Returns undefined for the zero time
 * (absent, empty, or Go's 0001-01-01T00:00:00Z) and for unparseable input.
 */
export function parseTime(value: unknown): number | undefined {
  if (value instanceof Date) return value.getTime();
  if (typeof value !== "string" || value === "") return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  if (ms === GO_ZERO_TIME) return undefined;
  return ms;
}

/** Elapsed time since a timestamp, "<unknown>" for the zero time. */
export function since(timestamp: unknown, now: Date): string {
  const t = parseTime(timestamp);
  if (t === undefined) return "<unknown>";
  return humanDuration(now.getTime() - t);
}
