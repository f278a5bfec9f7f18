// Messages whose JSON form is not an object of their fields (Time, MicroTime, Quantity,
// IntOrString, RawExtension, FieldsV1, apiextensions JSON and JSONSchemaPropsOr*, string
// list wrappers). Each has a body writer (JSON value → message body, no tag/length) and a
// body reader (message body → JSON value), matching Go's hand-written/generated marshallers.
import { DecodeError } from "../decode-error.js";
import { Reader, WIRE_LEN, WIRE_VARINT, type Writer } from "./wire.js";

export enum Special {
  None = 0,
  Time,
  MicroTime,
  Quantity,
  IntOrString,
  /** RawExtension, FieldsV1, apiextensions JSON: field 1 holds raw JSON bytes. */
  RawJson,
  /** ExtraValue, meta.v1.Verbs: field 1 repeated string; JSON is an array of strings. */
  StringArray,
  PropsOrArray,
  PropsOrBool,
  PropsOrStringArray,
}

const APIEXT = /^k8s\.io\.apiextensions_apiserver\.pkg\.apis\.apiextensions\.v1(beta1)?\./;

/** Which special JSON form a message has (Special.None for ordinary messages). */
export function specialOf(message: string): Special {
  switch (message) {
    case "k8s.io.apimachinery.pkg.apis.meta.v1.Time":
      return Special.Time;
    case "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime":
      return Special.MicroTime;
    case "k8s.io.apimachinery.pkg.api.resource.Quantity":
      return Special.Quantity;
    case "k8s.io.apimachinery.pkg.util.intstr.IntOrString":
      return Special.IntOrString;
    case "k8s.io.apimachinery.pkg.runtime.RawExtension":
    case "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1":
      return Special.RawJson;
    case "k8s.io.apimachinery.pkg.apis.meta.v1.Verbs":
      return Special.StringArray;
  }
  const simple = message.slice(message.lastIndexOf(".") + 1);
  if (simple === "ExtraValue") return Special.StringArray;
  if (APIEXT.test(message)) {
    switch (simple) {
      case "JSON":
        return Special.RawJson;
      case "JSONSchemaPropsOrArray":
        return Special.PropsOrArray;
      case "JSONSchemaPropsOrBool":
        return Special.PropsOrBool;
      case "JSONSchemaPropsOrStringArray":
        return Special.PropsOrStringArray;
    }
  }
  return Special.None;
}

/** Embedded schema messages of the JSONSchemaPropsOr* wrappers live in the same package. */
export function schemaPropsMessageOf(wrapper: string): string {
  return wrapper.slice(0, wrapper.lastIndexOf(".") + 1) + "JSONSchemaProps";
}

const FRACTION = /\.(\d+)/;

// Objects carry few distinct timestamps (creation, transitions): cache conversions both ways.
const CACHE_MAX = 4096;
const parsed = new Map<string, { seconds: number; nanos: number } | undefined>();
const formatted = new Map<number, string>();

/** Seconds and nanoseconds of an RFC 3339 timestamp; undefined when it does not parse. */
function parseTimestamp(s: string, micro: boolean): { seconds: number; nanos: number } | undefined {
  if (micro) return parseUncached(s, true);
  if (parsed.has(s)) return parsed.get(s);
  const t = parseUncached(s, false);
  if (parsed.size >= CACHE_MAX) parsed.clear();
  parsed.set(s, t);
  return t;
}

function parseUncached(s: string, micro: boolean): { seconds: number; nanos: number } | undefined {
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) return undefined;
  const seconds = Math.floor(ms / 1000);
  if (!micro) return { seconds, nanos: 0 };
  const m = FRACTION.exec(s);
  const nanos = m ? Number((m[1] + "000000000").slice(0, 6)) * 1000 : 0;
  return { seconds, nanos };
}

function formatTime(seconds: number, nanos: number, micro: boolean): string {
  if (micro) return formatUncached(seconds, nanos, true);
  let s = formatted.get(seconds);
  if (s === undefined) {
    s = formatUncached(seconds, 0, false);
    if (formatted.size >= CACHE_MAX) formatted.clear();
    formatted.set(seconds, s);
  }
  return s;
}

function formatUncached(seconds: number, nanos: number, micro: boolean): string {
  const iso = new Date(seconds * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  const base = iso.slice(0, 19);
  if (!micro) return base + "Z";
  const us = Math.floor(nanos / 1000);
  return `${base}.${String(us).padStart(6, "0")}Z`;
}

function toJsonBytes(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), "utf8");
}

/** Writes the message body of a special JSON value (a value of the wrong shape writes what Go would for a zero value, or nothing). */
export function writeSpecial(
  w: Writer,
  special: Special,
  value: unknown,
  writeSchema: (w: Writer, schema: unknown) => void,
): void {
  switch (special) {
    case Special.Time:
    case Special.MicroTime: {
      if (typeof value !== "string") return;
      const t = parseTimestamp(value, special === Special.MicroTime);
      if (t === undefined) return;
      w.ensure(1);
      w.buf[w.pos++] = 0x08;
      w.int(t.seconds);
      w.ensure(1);
      w.buf[w.pos++] = 0x10;
      w.int(t.nanos);
      return;
    }
    case Special.Quantity:
      w.ensure(1);
      w.buf[w.pos++] = 0x0a;
      w.string(typeof value === "string" ? value : String(value));
      return;
    case Special.IntOrString: {
      const isString = typeof value === "string";
      w.ensure(1);
      w.buf[w.pos++] = 0x08;
      w.uvarint(isString ? 1 : 0);
      w.ensure(1);
      w.buf[w.pos++] = 0x10;
      w.int(isString ? 0 : Number(value) | 0);
      w.ensure(1);
      w.buf[w.pos++] = 0x1a;
      w.string(isString ? value : "");
      return;
    }
    case Special.RawJson:
      w.ensure(1);
      w.buf[w.pos++] = 0x0a;
      w.bytes(toJsonBytes(value));
      return;
    case Special.StringArray:
      if (!Array.isArray(value)) return;
      for (const s of value) {
        w.ensure(1);
        w.buf[w.pos++] = 0x0a;
        w.string(typeof s === "string" ? s : String(s));
      }
      return;
    case Special.PropsOrArray:
      if (Array.isArray(value)) {
        for (const s of value) {
          w.ensure(1);
          w.buf[w.pos++] = 0x12;
          const m = w.beginLength();
          writeSchema(w, s);
          w.endLength(m);
        }
      } else if (value !== null && typeof value === "object") {
        w.ensure(1);
        w.buf[w.pos++] = 0x0a;
        const m = w.beginLength();
        writeSchema(w, value);
        w.endLength(m);
      }
      return;
    case Special.PropsOrBool: {
      const isSchema = value !== null && typeof value === "object";
      w.ensure(2);
      w.buf[w.pos++] = 0x08;
      w.buf[w.pos++] = isSchema || value === true ? 1 : 0;
      if (isSchema) {
        w.ensure(1);
        w.buf[w.pos++] = 0x12;
        const m = w.beginLength();
        writeSchema(w, value);
        w.endLength(m);
      }
      return;
    }
    case Special.PropsOrStringArray:
      if (Array.isArray(value)) {
        for (const s of value) {
          w.ensure(1);
          w.buf[w.pos++] = 0x12;
          w.string(typeof s === "string" ? s : String(s));
        }
      } else if (value !== null && typeof value === "object") {
        w.ensure(1);
        w.buf[w.pos++] = 0x0a;
        const m = w.beginLength();
        writeSchema(w, value);
        w.endLength(m);
      }
      return;
  }
}

function parseJsonBytes(b: Buffer): unknown {
  if (b.length === 0) return null;
  try {
    return JSON.parse(b.toString("utf8"));
  } catch (e) {
    throw new DecodeError(`protobuf: embedded JSON is invalid: ${(e as Error).message}`);
  }
}

function expect(wire: number, want: number, what: string): void {
  if (wire !== want) throw new DecodeError(`protobuf: wrong wire type ${wire} for ${what}`);
}

/**
 * Reads a special message body (r.pos .. end) into its JSON value. `readSchema` decodes an
 * embedded JSONSchemaProps body; `readEmbedded` decodes raw bytes that carry their own
 * protobuf envelope (a RawExtension holding a protobuf object, as in watch events).
 */
export function readSpecial(
  r: Reader,
  end: number,
  special: Special,
  readSchema: (r: Reader, end: number) => unknown,
  readEmbedded: (raw: Buffer) => unknown,
): unknown {
  let seconds = 0;
  let nanos = 0;
  let type = 0;
  let intVal = 0;
  let str = "";
  let raw: Buffer | undefined;
  let schema: unknown;
  let list: unknown[] | undefined;
  let allows = false;
  const start = r.pos;
  while (r.pos < end) {
    const key = r.uvarint();
    const num = key >>> 3;
    const wire = key & 7;
    switch (special) {
      case Special.Time:
      case Special.MicroTime:
      case Special.IntOrString:
        if (num === 1) {
          expect(wire, WIRE_VARINT, "varint field");
          if (special === Special.IntOrString) type = r.int();
          else seconds = r.int();
        } else if (num === 2) {
          expect(wire, WIRE_VARINT, "varint field");
          if (special === Special.IntOrString) intVal = r.int() | 0;
          else nanos = r.int();
        } else if (num === 3 && special === Special.IntOrString) {
          expect(wire, WIRE_LEN, "strVal");
          str = r.string();
        } else r.skip(wire);
        continue;
      case Special.Quantity:
        if (num === 1) {
          expect(wire, WIRE_LEN, "Quantity.string");
          str = r.string();
        } else r.skip(wire);
        continue;
      case Special.RawJson:
        if (num === 1) {
          expect(wire, WIRE_LEN, "raw");
          raw = r.bytes();
        } else r.skip(wire);
        continue;
      case Special.StringArray:
        if (num === 1) {
          expect(wire, WIRE_LEN, "items");
          (list ??= []).push(r.string());
        } else r.skip(wire);
        continue;
      case Special.PropsOrArray:
      case Special.PropsOrStringArray:
      case Special.PropsOrBool: {
        const schemaField = special === Special.PropsOrBool ? 2 : 1;
        if (num === schemaField) {
          expect(wire, WIRE_LEN, "schema");
          const e = r.lengthEnd();
          schema = readSchema(r, e);
          r.pos = e;
        } else if (num === 1 && special === Special.PropsOrBool) {
          expect(wire, WIRE_VARINT, "allows");
          allows = r.uvarint() !== 0;
        } else if (num === 2 && special === Special.PropsOrArray) {
          expect(wire, WIRE_LEN, "jSONSchemas");
          const e = r.lengthEnd();
          (list ??= []).push(readSchema(r, e));
          r.pos = e;
        } else if (num === 2 && special === Special.PropsOrStringArray) {
          expect(wire, WIRE_LEN, "property");
          (list ??= []).push(r.string());
        } else r.skip(wire);
        continue;
      }
      default:
        r.skip(wire);
    }
  }
  if (r.pos !== end) throw new DecodeError("protobuf: message overruns its length");
  switch (special) {
    case Special.Time:
    case Special.MicroTime:
      // An empty body is Go's zero time, which is JSON null.
      if (end === start) return null;
      return formatTime(seconds, nanos, special === Special.MicroTime);
    case Special.Quantity:
      return str;
    case Special.IntOrString:
      return type === 1 ? str : intVal;
    case Special.RawJson:
      if (raw === undefined) return null;
      if (raw.length >= 4 && raw[0] === 0x6b && raw[1] === 0x38 && raw[2] === 0x73 && raw[3] === 0x00) return readEmbedded(raw);
      return parseJsonBytes(raw);
    case Special.StringArray:
      return list ?? [];
    case Special.PropsOrArray:
      if (list !== undefined) return list;
      return schema ?? null;
    case Special.PropsOrBool:
      return schema !== undefined ? schema : allows;
    case Special.PropsOrStringArray:
      if (list !== undefined) return list;
      return schema ?? null;
  }
  return null;
}
