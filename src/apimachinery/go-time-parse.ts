// Go's time.Parse for the two layouts metav1 decodes timestamps with (RFC 3339, and RFC 3339 with
// exactly six fractional digits for MicroTime): whether a text parses, and if not, the error Go
// gives, which kube-apiserver answers a body with (metav1.Time decodes itself). Follows Go's
// layout-driven parser: each layout element in turn, a literal mismatch or a malformed element as
// `cannot parse "<rest>" as "<element>"`, a field out of range as `<field> out of range`.

export const rfc3339Layout = "2006-01-02T15:04:05Z07:00";
export const rfc3339MicroLayout = "2006-01-02T15:04:05.000000Z07:00";

/** Layout elements: literal text, or a field. */
type Element = { literal: string } | { field: "year" | "month" | "day" | "hour" | "minute" | "second" | "micros" | "zone"; text: string };

const elementsOf = (micro: boolean): Element[] => [
  { field: "year", text: "2006" },
  { literal: "-" },
  { field: "month", text: "01" },
  { literal: "-" },
  { field: "day", text: "02" },
  { literal: "T" },
  { field: "hour", text: "15" },
  { literal: ":" },
  { field: "minute", text: "04" },
  { literal: ":" },
  { field: "second", text: "05" },
  ...(micro ? [{ field: "micros", text: ".000000" } as const] : []),
  { field: "zone", text: "Z07:00" },
];

const isDigit = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39;

/** Go's time.quote: ASCII printable kept (quote and backslash escaped), anything else as \xNN bytes. */
function timeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0x80 || c < 0x20) {
      for (const b of Buffer.from(ch, "utf8")) out += `\\x${b.toString(16).padStart(2, "0")}`;
    } else out += ch === '"' || ch === "\\" ? `\\${ch}` : ch;
  }
  return out + '"';
}

const daysIn = (month: number, year: number) => (month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31);

/** The usual forms, checked in one match (every timestamp of every write is): anything else takes the parser's walk. */
const usual = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:\d\d)$/;
const usualMicro = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[.,]\d{6}(?:Z|[+-]\d\d:\d\d)$/;

/** The two digits at `i` as a number (the match made sure they are digits). */
const two = (s: string, i: number) => (s.charCodeAt(i) - 0x30) * 10 + s.charCodeAt(i + 1) - 0x30;

function usualAndInRange(value: string, micro: boolean): boolean {
  if (!(micro ? usualMicro : usual).test(value)) return false;
  const year = two(value, 0) * 100 + two(value, 2);
  const month = two(value, 5);
  const day = two(value, 8);
  const zoneOk = value.endsWith("Z") || (two(value, value.length - 5) <= 24 && two(value, value.length - 2) <= 60);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(month, year) && two(value, 11) < 24 && two(value, 14) < 60 && two(value, 17) < 60 && zoneOk;
}

/** The error Go's time.Parse gives for `value` under RFC 3339 (or RFC3339Micro), or undefined when it parses. */
export function goTimeParseError(value: string, micro = false): string | undefined {
  if (usualAndInRange(value, micro)) return undefined;
  const layout = micro ? rfc3339MicroLayout : rfc3339Layout;
  const cannot = (rest: string, element: string) => `parsing time ${timeQuote(value)} as ${timeQuote(layout)}: cannot parse ${timeQuote(rest)} as ${timeQuote(element)}`;
  const outOfRange = (what: string) => `parsing time ${timeQuote(value)}: ${what} out of range`;
  let rest = value;
  let year = 0;
  let month = 0;
  let day = 0;
  /** A fixed two-digit number, or a one- or two-digit one. */
  const number = (fixed: boolean): number | undefined => {
    if (!isDigit(rest, 0)) return undefined;
    if (!isDigit(rest, 1)) {
      if (fixed) return undefined;
      const n = rest.charCodeAt(0) - 0x30;
      rest = rest.slice(1);
      return n;
    }
    const n = Number(rest.slice(0, 2));
    rest = rest.slice(2);
    return n;
  };
  for (const e of elementsOf(micro)) {
    if ("literal" in e) {
      if (!rest.startsWith(e.literal)) return cannot(rest, e.literal);
      rest = rest.slice(e.literal.length);
      continue;
    }
    const before = rest;
    switch (e.field) {
      case "year":
        if (rest.length < 4 || !/^\d{4}/.test(rest)) return cannot(before, e.text);
        year = Number(rest.slice(0, 4));
        rest = rest.slice(4);
        break;
      case "month": {
        const n = number(true);
        if (n === undefined) return cannot(before, e.text);
        if (n < 1 || n > 12) return outOfRange("month");
        month = n;
        break;
      }
      case "day": {
        const n = number(true);
        if (n === undefined) return cannot(before, e.text);
        day = n;
        break;
      }
      case "hour": {
        const n = number(false);
        if (n === undefined) return cannot(before, e.text);
        if (n >= 24) return outOfRange("hour");
        break;
      }
      case "minute": {
        const n = number(true);
        if (n === undefined) return cannot(before, e.text);
        if (n >= 60) return outOfRange("minute");
        break;
      }
      case "second": {
        const n = number(true);
        if (n === undefined) return cannot(before, e.text);
        if (n >= 60) return outOfRange("second");
        // A fraction the layout does not name is read anyway (not when the layout names one).
        if (!micro && rest.length >= 2 && (rest[0] === "." || rest[0] === ",") && isDigit(rest, 1)) {
          let end = 2;
          while (isDigit(rest, end)) end++;
          rest = rest.slice(end);
        }
        break;
      }
      case "micros": {
        // Exactly six digits, read as Go's atoi reads them (a sign allowed; a negative is out of range).
        const digits = rest.slice(1, 7);
        if (rest.length < 7 || (rest[0] !== "." && rest[0] !== ",") || !/^[+-]?\d+$/.test(digits)) return cannot(before, e.text);
        if (digits[0] === "-" && Number(digits) < 0) return outOfRange("fractional second");
        rest = rest.slice(7);
        break;
      }
      case "zone": {
        if (rest[0] === "Z") {
          rest = rest.slice(1);
          break;
        }
        if (rest.length < 6 || rest[3] !== ":") return cannot(before, e.text);
        // Go reads the hours, then the minutes if the hours read; checks both ranges (the later
        // one named); then the sign and whether both read.
        const hours = /^\d\d$/.test(rest.slice(1, 3)) ? Number(rest.slice(1, 3)) : undefined;
        const minutes = hours !== undefined && /^\d\d$/.test(rest.slice(4, 6)) ? Number(rest.slice(4, 6)) : undefined;
        let range: string | undefined;
        if ((hours ?? 0) > 24) range = "time zone offset hour";
        if ((minutes ?? 0) > 60) range = "time zone offset minute";
        if (range) return outOfRange(range);
        if (minutes === undefined || (rest[0] !== "+" && rest[0] !== "-")) return cannot(before, e.text);
        rest = rest.slice(6);
        break;
      }
    }
  }
  if (rest !== "") return `parsing time ${timeQuote(value)}: extra text: ${timeQuote(rest)}`;
  if (day < 1 || day > daysIn(month, year)) return outOfRange("day");
  return undefined;
}
