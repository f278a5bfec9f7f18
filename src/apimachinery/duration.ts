// Durations as Go writes them ("1m0s", "1.5h", "300ms", "-2s"): flags such as --request-timeout
// and the `timeout` query parameter take this form, and a bad one is answered with Go's own
// wording (clients and operators see the same text as from kube-apiserver).
import { goQuote } from "./go-quote.js";

/** Nanoseconds per unit, by Go's unit names (both micro signs are accepted, as Go does). */
const unitNanos: Record<string, number> = {
  ns: 1,
  us: 1e3,
  "µs": 1e3, // U+00B5 MICRO SIGN
  "μs": 1e3, // U+03BC GREEK SMALL LETTER MU
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** Go keeps durations in a signed 64-bit count of nanoseconds. */
const maxNanos = 2 ** 63;

export class DurationError extends Error {
  override name = "DurationError";
}

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

/** Parses a Go duration; returns milliseconds (fractional below 1 ms). Throws DurationError. */
export function parseGoDuration(text: string): number {
  const invalid = () => new DurationError(`time: invalid duration ${goQuote(text)}`);
  let s = text;
  let negative = false;
  if (s[0] === "-" || s[0] === "+") {
    negative = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0; // the one value that needs no unit
  if (s === "") throw invalid();
  let nanos = 0;
  while (s !== "") {
    if (s[0] !== "." && !isDigit(s[0])) throw invalid();
    let i = 0;
    while (isDigit(s[i])) i++;
    const whole = s.slice(0, i);
    s = s.slice(i);
    let fraction = "";
    if (s[0] === ".") {
      let j = 1;
      while (isDigit(s[j])) j++;
      fraction = s.slice(1, j);
      s = s.slice(j);
    }
    if (whole === "" && fraction === "") throw invalid(); // a lone "."
    let u = 0;
    while (u < s.length && s[u] !== "." && !isDigit(s[u])) u++;
    if (u === 0) throw new DurationError(`time: missing unit in duration ${goQuote(text)}`);
    const unit = s.slice(0, u);
    s = s.slice(u);
    const scale = unitNanos[unit];
    if (scale === undefined) throw new DurationError(`time: unknown unit ${goQuote(unit)} in duration ${goQuote(text)}`);
    nanos += Number(whole || "0") * scale + (fraction ? Number(`0.${fraction}`) * scale : 0);
    if (nanos >= maxNanos) throw invalid();
  }
  const ms = nanos / 1e6;
  return negative ? -ms : ms;
}
