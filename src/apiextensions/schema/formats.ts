// The string formats a CRD schema validates (upstream apiextensions' supported format list at the
// 1.33 compatibility version of a 1.34 server, checked with kube-openapi's strfmt rules). Other
// formats, int32/int64/float/double included, are dropped from the schema before validation.
import { parseIPv4Sloppy, parseIPv6 } from "../../apimachinery/ip-address.js";
import type { RE2JS } from "re2js";
import { re2 } from "../../cel/regex.js";

export const supportedFormats = new Set([
  "bsonobjectid", "uri", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "uuid", "uuid3", "uuid4",
  "uuid5", "isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor", "rgbcolor", "byte", "password",
  "date", "duration", "datetime",
]);

/** kube-openapi's name normalisation: dashes removed (`date-time` → `datetime`). */
export function normalizeFormat(f: string): string {
  return f.replace(/-/g, "");
}

/** The format kept for validation ("" when upstream strips it). */
export function effectiveFormat(f: string | undefined): string {
  if (!f) return "";
  return supportedFormats.has(normalizeFormat(f)) ? f : "";
}

let hostnameRe: RE2JS | undefined;
const hostnamePattern = String.raw`^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$`;
const uuidRe = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid3Re = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuid4Re = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const uuid5Re = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const dateTimeTimeRe = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;

function byteLen(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

export function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]!;
  return d <= days;
}

export function isDateTime(str: string): boolean {
  if (str.length < 4) return false;
  const parts = str.toLowerCase().split("t");
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const m = dateTimeTimeRe.exec(parts[1]!);
  if (!m) return false;
  return m[1]! <= "23" && m[2]! <= "59" && m[3]! <= "59";
}

export function isHostname(s: string): boolean {
  if (!(hostnameRe ??= re2().RE2JS.compile(hostnamePattern)).matches(s)) return false;
  if (byteLen(s) > 255) return false;
  return s.split(".").every((p) => byteLen(p) <= 63);
}

export function isEmail(s: string): boolean {
  // net/mail.ParseAddress accepts `Name <addr>` and bare `local@domain` (simplified here).
  const m = /^(?:[^<>]*<([^<>]+)>|(.+))$/.exec(s.trim());
  const addr = (m?.[1] ?? m?.[2] ?? "").trim();
  const at = addr.lastIndexOf("@");
  if (at <= 0 || at === addr.length - 1) return false;
  const local = addr.slice(0, at);
  const domain = addr.slice(at + 1);
  const atext = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~\u0080-\uffff]+(\.[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~\u0080-\uffff]+)*$/;
  if (!atext.test(local) && !/^"([^"\\]|\\.)*"$/.test(local)) return false;
  return atext.test(domain) || /^\[[^\]]*\]$/.test(domain);
}

export function isRequestURI(s: string): boolean {
  // govalidator.IsRequestURI: url.ParseRequestURI — an absolute URI or an absolute path.
  if (s.startsWith("/")) return !/[\s]/.test(s);
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/.exec(s);
  if (!m) return false;
  if (/[\x00-\x20\x7f]/.test(s)) return false;
  return true;
}

/** ParseIPSloppy: IPv4 with leading zeros in its octets, or IPv6. */
function isIPSloppy(s: string): boolean {
  return parseIPv4Sloppy(s) !== undefined || parseIPv6(s) !== undefined;
}

export function isCIDR(s: string): boolean {
  const i = s.indexOf("/");
  if (i < 0) return false;
  const ip = s.slice(0, i);
  const bits = s.slice(i + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  const n = Number(bits);
  if (isIPSloppy(ip) && (ip.includes(".") && !ip.includes(":"))) return n <= 32;
  if (parseIPv6(ip)) return n <= 128;
  return false;
}

function isMAC(s: string): boolean {
  return (
    /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/.test(s) ||
    /^([0-9A-Fa-f]{2}[:-]){7}[0-9A-Fa-f]{2}$/.test(s) ||
    /^([0-9A-Fa-f]{2}[:-]){19}[0-9A-Fa-f]{2}$/.test(s) ||
    /^([0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$/.test(s) ||
    /^([0-9A-Fa-f]{4}\.){3}[0-9A-Fa-f]{4}$/.test(s) ||
    /^([0-9A-Fa-f]{4}\.){9}[0-9A-Fa-f]{4}$/.test(s)
  );
}

function isISBN10(s: string): boolean {
  const t = s.replace(/[\s-]/g, "");
  if (!/^\d{9}[\dX]$/.test(t)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(t[i]);
  sum += t[9] === "X" ? 100 : 10 * Number(t[9]);
  return sum % 11 === 0;
}
function isISBN13(s: string): boolean {
  const t = s.replace(/[\s-]/g, "");
  if (!/^\d{13}$/.test(t)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(t[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(t[12]);
}
function isCreditCard(s: string): boolean {
  const t = s.replace(/[^0-9]/g, "");
  if (!/^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/.test(t))
    return false;
  let sum = 0;
  let dbl = false;
  for (let i = t.length - 1; i >= 0; i--) {
    let d = Number(t[i]);
    if (dbl) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    dbl = !dbl;
  }
  return sum % 10 === 0;
}
function isBase64(s: string): boolean {
  return /^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$/.test(s);
}
function isDuration(s: string): boolean {
  if (/^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/.test(s) || s === "0") return true;
  const re = /((\d+)\s*([A-Za-zµ]+))/g;
  const units = [
    ["ns", "nano"], ["us", "µs", "micro"], ["ms", "milli"], ["s", "sec"], ["m", "min"], ["h", "hr", "hour"],
    ["d", "day"], ["w", "wk", "week"],
  ];
  let ok = false;
  for (const m of s.matchAll(re)) {
    const unit = m[3]!.trim().toLowerCase();
    for (const variants of units) {
      const last = variants.length - 1;
      variants.forEach((v, i) => {
        if ((i === last && unit.startsWith(v)) || v.toLowerCase() === unit) ok = true;
      });
    }
  }
  return ok;
}

const validators: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestURI,
  email: isEmail,
  hostname: isHostname,
  ipv4: (s) => isIPSloppy(s) && s.includes("."),
  ipv6: (s) => parseIPv6(s) !== undefined,
  cidr: isCIDR,
  mac: isMAC,
  uuid: (s) => uuidRe.test(s),
  uuid3: (s) => uuid3Re.test(s),
  uuid4: (s) => uuid4Re.test(s),
  uuid5: (s) => uuid5Re.test(s),
  isbn: (s) => isISBN10(s) || isISBN13(s),
  isbn10: isISBN10,
  isbn13: isISBN13,
  creditcard: isCreditCard,
  ssn: (s) => /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) =>
    /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/.test(s),
  byte: isBase64,
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
};

/** Whether `s` is valid in (supported) format `f`. */
export function validFormat(f: string, s: string): boolean {
  const v = validators[normalizeFormat(f)];
  return v ? v(s) : true;
}

