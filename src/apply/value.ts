// JSON value helpers shared by the field-ownership engine: a total order and
// equality over JSON values (the order structured-merge-diff uses to sort path
// elements), Go-compatible JSON encoding (keys sorted, HTML characters
// escaped, as Go's encoding/json writes them) and Go's %q quoting.

import { goQuote } from "../apimachinery/validation.js";

/** A plain JSON value as produced by JSON.parse. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A plain JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** True for a non-null, non-array object. */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// Kind rank of the total order: numbers < strings < booleans < lists < maps < null.
function rank(v: unknown): number {
  if (typeof v === "number") return 0;
  if (typeof v === "string") return 1;
  if (typeof v === "boolean") return 2;
  if (Array.isArray(v)) return 3;
  if (isObject(v)) return 4;
  return 5;
}

function cmpString(a: string, b: string): number {
  // Byte order of the UTF-8 encodings, as Go's strings.Compare.
  if (a === b) return 0;
  const ab = Buffer.from(a, "utf8");
  const bb = Buffer.from(b, "utf8");
  return Buffer.compare(ab, bb);
}

/** Byte-wise (UTF-8) string comparison, like Go's strings.Compare. */
export function compareStrings(a: string, b: string): number {
  // Fast path: for ASCII-only strings, UTF-16 order equals byte order.
  if (isAscii(a) && isAscii(b)) return a < b ? -1 : a > b ? 1 : 0;
  return cmpString(a, b);
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Total order over JSON values (-1, 0, 1); numbers compare numerically. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a === false ? -1 : 1;
    case 3: {
      const la = a as unknown[];
      const lb = b as unknown[];
      for (let i = 0; ; i++) {
        if (i >= la.length && i >= lb.length) return 0;
        if (i >= la.length) return -1;
        if (i >= lb.length) return 1;
        const c = compareValues(la[i], lb[i]);
        if (c !== 0) return c;
      }
    }
    case 4: {
      const ma = a as JsonObject;
      const mb = b as JsonObject;
      const ka = Object.keys(ma);
      const kb = Object.keys(mb);
      if (ka.length === 0 && kb.length === 0) return 0;
      const keys = [...new Set([...ka, ...kb])].sort(compareStrings);
      let i = 0;
      for (const k of keys) {
        let c: number;
        if (i === ka.length) c = -1;
        else if (i === kb.length) c = 1;
        else if (!(k in ma)) c = 1;
        else if (!(k in mb)) c = -1;
        else c = compareValues(ma[k], mb[k]);
        i++;
        if (c !== 0) return c;
      }
      return 0;
    }
    default:
      return 0;
  }
}

/** Deep equality of JSON values (absent keys differ from null ones). */
export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "number" || typeof b === "number") return a === b;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valuesEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) {
      if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
      if (!valuesEqual(a[k], b[k])) return false;
    }
    return true;
  }
  return false;
}

const HTML_ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/** A JSON string literal as Go's encoding/json writes it (HTML characters escaped). */
export function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => HTML_ESCAPES[c]!);
}

/** JSON text of a value as Go's encoding/json writes a decoded interface{} (map keys sorted). */
export function goJson(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return goJsonString(v);
  if (typeof v === "number") return Number.isFinite(v) ? JSON.stringify(v) : "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (Array.isArray(v)) return "[" + v.map(goJson).join(",") + "]";
  const o = v as JsonObject;
  const keys = Object.keys(o).sort(compareStrings);
  return "{" + keys.map((k) => goJsonString(k) + ":" + goJson(o[k])).join(",") + "}";
}

/** Whether a code point is printable in the sense of Go's unicode.IsPrint. */
export function isGoPrintable(ch: string): boolean {
  return ch === " " || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);
}

/** A string quoted as Go's %q / strconv.Quote does (one implementation, shared with validation). */
export { goQuote };

/** A value formatted as structured-merge-diff's value.ToString (used in path strings). */
export function smdValueString(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return goQuote(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return "[" + v.map(smdValueString).join(",") + "]";
  const o = v as JsonObject;
  return Object.keys(o)
    .map((k) => `${k}=${smdValueString(o[k])}`)
    .join("");
}

/** Deep copy of a JSON value. */
export function cloneJson<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}
