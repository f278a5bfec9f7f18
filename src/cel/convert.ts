// JSON (objects in kapi's store) ↔ CEL values, and CEL values printed as CEL literals.
// With a declared type (from the OpenAPI schema) a whole number in a `double` field stays a
// double, `date-time` strings become timestamps, `duration` strings durations and `byte` strings
// bytes; without one (dyn), integers become int and other numbers double.
import type { CelType } from "./types.js";
import {
  CelDuration,
  CelMap,
  CelOptional,
  CelTimestamp,
  CelTypeValue,
  CelUint,
  type CelOpaque,
  type CelValue,
} from "./value.js";
import { formatDouble } from "./stdlib/standard.js";
import { formatDuration, formatTimestamp, parseDuration, parseTimestamp } from "./stdlib/time.js";
import { runtimeTypeName } from "./stdlib/values.js";

function dynToCel(json: unknown): CelValue {
  switch (typeof json) {
    case "string":
    case "boolean":
    case "bigint":
      return json;
    case "number":
      return Number.isInteger(json) ? BigInt(json) : json;
    case "undefined":
      return null;
  }
  if (json === null) return null;
  if (Array.isArray(json)) return json.map(dynToCel);
  if (json instanceof Uint8Array) return json;
  const rec: Record<string, CelValue> = {};
  for (const k of Object.keys(json as object)) rec[k] = dynToCel((json as Record<string, unknown>)[k]);
  return CelMap.fromRecord(rec);
}

function base64Decode(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s, "base64"));
}

/** A JSON value as a CEL value, guided by its declared type when given. */
export function toCel(json: unknown, type?: CelType): CelValue {
  if (json === null || json === undefined) return null;
  if (!type) return dynToCel(json);
  switch (type.kind) {
    case "int":
      if (typeof json === "number" && Number.isInteger(json)) return BigInt(json);
      break;
    case "uint":
      if (typeof json === "number" && Number.isInteger(json) && json >= 0) return new CelUint(BigInt(json));
      if (typeof json === "bigint" && json >= 0n) return new CelUint(json);
      break;
    case "double":
      if (typeof json === "number") return json;
      if (typeof json === "bigint") return Number(json);
      break;
    case "bytes":
      if (typeof json === "string") return base64Decode(json);
      break;
    case "timestamp":
      if (typeof json === "string") {
        try {
          return parseTimestamp(json) ?? json;
        } catch {
          return json;
        }
      }
      break;
    case "duration":
      if (typeof json === "string") return parseDuration(json) ?? json;
      break;
    case "list":
      if (Array.isArray(json)) return json.map((x) => toCel(x, type.elem));
      break;
    case "map":
      if (typeof json === "object" && !Array.isArray(json)) {
        const rec: Record<string, CelValue> = {};
        for (const k of Object.keys(json)) rec[k] = toCel((json as Record<string, unknown>)[k], type.value);
        return CelMap.fromRecord(rec);
      }
      break;
    case "object":
      if (typeof json === "object" && !Array.isArray(json)) {
        const rec: Record<string, CelValue> = {};
        for (const k of Object.keys(json)) rec[k] = toCel((json as Record<string, unknown>)[k], type.fields.get(k)?.type);
        return CelMap.fromRecord(rec);
      }
      break;
  }
  return dynToCel(json);
}

function base64Encode(b: Uint8Array): string {
  return Buffer.from(b).toString("base64");
}

/** Go's time.Duration.String(): `1h2m3.5s`, `1.5ms`, `0s`. */
export function goDurationString(nanos: bigint): string {
  if (nanos === 0n) return "0s";
  const neg = nanos < 0n;
  let u = neg ? -nanos : nanos;
  let out: string;
  if (u < 1_000_000_000n) {
    const [unit, div] = u < 1000n ? ["ns", 1n] : u < 1_000_000n ? ["µs", 1000n] : ["ms", 1_000_000n];
    out = fraction(u, div as bigint) + unit;
  } else {
    const h = u / 3_600_000_000_000n;
    u -= h * 3_600_000_000_000n;
    const m = u / 60_000_000_000n;
    u -= m * 60_000_000_000n;
    out = fraction(u, 1_000_000_000n) + "s";
    if (h > 0n) out = `${h}h${m}m${out}`;
    else if (m > 0n) out = `${m}m${out}`;
  }
  return neg ? "-" + out : out;
}
function fraction(v: bigint, div: bigint): string {
  const whole = v / div;
  const rest = v - whole * div;
  if (rest === 0n) return String(whole);
  const digits = String(div).length - 1;
  return `${whole}.${String(rest).padStart(digits, "0").replace(/0+$/, "")}`;
}

/** A CEL value as JSON: ints as numbers, bytes base64, timestamps RFC 3339, durations as Go prints them. */
export function fromCel(value: CelValue): unknown {
  switch (typeof value) {
    case "bigint":
      return Number(value);
    case "number":
      return Number.isFinite(value) ? value : formatDouble(value);
    case "string":
    case "boolean":
      return value;
  }
  if (value === null) return null;
  if (Array.isArray(value)) return value.map(fromCel);
  if (value instanceof CelMap) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value.entries()) out[k instanceof CelUint ? String(k.value) : String(k)] = fromCel(v);
    return out;
  }
  if (value instanceof CelUint) return Number(value.value);
  if (value instanceof Uint8Array) return base64Encode(value);
  if (value instanceof CelTimestamp) return formatTimestamp(value);
  if (value instanceof CelDuration) return goDurationString(value.nanos);
  if (value instanceof CelOptional) return value.hasValue ? fromCel(value.value) : null;
  if (value instanceof CelTypeValue) return runtimeTypeName(value.type);
  return String(value as CelOpaque);
}

function quoteString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + '"';
}

function quoteBytes(b: Uint8Array): string {
  let out = 'b"';
  for (const c of b) {
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += "\\\\";
    else if (c >= 0x20 && c < 0x7f) out += String.fromCharCode(c);
    else out += `\\x${c.toString(16).padStart(2, "0")}`;
  }
  return out + '"';
}

function doubleLiteral(x: number): string {
  if (Number.isNaN(x)) return 'double("NaN")';
  if (x === Infinity) return 'double("Infinity")';
  if (x === -Infinity) return 'double("-Infinity")';
  if (Number.isInteger(x) && Math.abs(x) < 1e21) return `${x}.0`;
  return String(x);
}

/** A value written as a CEL literal: `6`, `6u`, `2.0`, `"text"`, `b"\x00"`, `[1, 2]`, `{"k": 1}`, `timestamp("…")`, … */
export function celLiteral(value: CelValue): string {
  switch (typeof value) {
    case "bigint":
      return String(value);
    case "number":
      return doubleLiteral(value);
    case "string":
      return quoteString(value);
    case "boolean":
      return String(value);
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return `[${value.map(celLiteral).join(", ")}]`;
  if (value instanceof CelMap)
    return `{${[...value.entries()].map(([k, v]) => `${celLiteral(k)}: ${celLiteral(v)}`).join(", ")}}`;
  if (value instanceof CelUint) return `${value.value}u`;
  if (value instanceof Uint8Array) return quoteBytes(value);
  if (value instanceof CelTimestamp) return `timestamp(${quoteString(formatTimestamp(value))})`;
  if (value instanceof CelDuration) return `duration(${quoteString(formatDuration(value))})`;
  if (value instanceof CelOptional) return value.hasValue ? `optional.of(${celLiteral(value.value)})` : "optional.none()";
  if (value instanceof CelTypeValue) return runtimeTypeName(value.type);
  return String(value as CelOpaque);
}
