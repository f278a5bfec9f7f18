// Go's encoding/json as upstream's messages show it: Marshal's text of a value (keys in byte
// order, HTML characters escaped), Unmarshal's syntax and type errors. Pure; no I/O.
import { goQuoteRune } from "./go-quote.js";
import { goJsonSyntaxError } from "./go-json-syntax.js";

/** Byte-wise (UTF-8) string comparison, like Go's strings.Compare. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  // UTF-16 code units order as UTF-8 bytes (code points) unless both are at or above the
  // surrogates (U+D800): only then does a supplementary character sort apart from U+E000–U+FFFF.
  const n = a.length < b.length ? a.length : b.length;
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length < b.length ? -1 : 1;
  const ca = a.charCodeAt(i);
  const cb = b.charCodeAt(i);
  if (ca < 0xd800 || cb < 0xd800) return ca < cb ? -1 : 1;
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

const htmlUnsafe = /[<>&\u2028\u2029]/g;
/** Anything JSON or Go escapes, and surrogates (a lone one is replaced). */
const needsEscaping = /[\u0000-\u001f"\\<>&\u2028\u2029\ud800-\udfff]/;
const loneSurrogate = /\p{Cs}/u;

function escapeValid(s: string): string {
  return JSON.stringify(s)
    .slice(1, -1)
    .replace(htmlUnsafe, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

/**
 * A JSON string literal as Go's encoding/json writes it: \b \f \n \r \t short, other control
 * characters and < > & U+2028 U+2029 as \u00XX, a lone surrogate (invalid UTF-8 to Go) as \ufffd.
 */
export function goJSONString(s: string): string {
  // Most strings (names, paths, timestamps) need no escaping at all: quoted as they are.
  if (!needsEscaping.test(s)) return `"${s}"`;
  const body = loneSurrogate.test(s) ? s.split(/\p{Cs}/u).map(escapeValid).join("\\ufffd") : escapeValid(s);
  return `"${body}"`;
}

/** json.Marshal of a decoded value: map keys sorted, undefined members left out. */
export function goJSON(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return goJSONString(v);
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "bigint") return v.toString();
  if (Array.isArray(v)) return "[" + v.map(goJSON).join(",") + "]";
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort(compareStrings);
    return "{" + keys.map((k) => goJSONString(k) + ":" + goJSON(o[k])).join(",") + "}";
  }
  return "null";
}

/** The word Go's encoding/json uses for a JSON value's kind in "cannot unmarshal X into ...". */
export function jsonKindWord(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (v === null) return "null";
  if (typeof v === "boolean") return "bool";
  return typeof v; // object, string, number
}

/** json.Unmarshal's type error for `v` decoded into a Go value of type `goType`. */
export function cannotUnmarshal(v: unknown, goType: string): string {
  return `json: cannot unmarshal ${jsonKindWord(v)} into Go value of type ${goType}`;
}

/** json.Unmarshal into map[string]interface{}: syntax errors, then type mismatch. */
export function goUnmarshalMapError(text: string): string | undefined {
  const syntax = goJsonSyntaxError(text);
  if (syntax) return syntax;
  const v: unknown = JSON.parse(text);
  if (v === null || (typeof v === "object" && !Array.isArray(v))) return undefined;
  return cannotUnmarshal(v, "map[string]interface {}");
}
