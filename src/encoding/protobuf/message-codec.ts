// JSON ⇄ protobuf message bodies for every message in the generated tables. A plan per
// message (fields in number order, precomputed tags and JSON keys) is compiled on first
// use and cached; nested plans are resolved lazily, so recursive schemas are fine.
import { DecodeError } from "../decode-error.js";
import { getProtoMessage, definitionForProtoMessage, type ProtoField } from "../schema/protobuf-facts.js";
import { getDefinition } from "../schema/schema-facts.js";
import presenceFile from "./presence.json" with { type: "json" };
import { Special, readSpecial, schemaPropsMessageOf, specialOf, writeSpecial } from "./special-types.js";
import { Reader, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT, tagBytes, type Writer } from "./wire.js";

enum Kind {
  String,
  Bool,
  Int,
  Double,
  Bytes,
  Message,
  Special,
}

enum Label {
  Optional,
  Repeated,
  Map,
}

interface ValueType {
  kind: Kind;
  /** Message name (Message and Special kinds). */
  message?: string;
  special: Special;
  wire: number;
}

interface FieldPlan extends ValueType {
  /** JSON property name. */
  key: string;
  number: number;
  label: Label;
  inline: boolean;
  /** Key bytes of this field on the wire. */
  tag: Uint8Array;
  /** Decoding: keep a zero scalar (Go writes the field only when set, or the JSON field is required). */
  keepZero: boolean;
  /** Map value type and its key bytes (field 2 of the entry). */
  value?: ValueType;
  valueTag?: Uint8Array;
  plan?: MessagePlan;
}

export interface MessagePlan {
  readonly name: string;
  readonly fields: FieldPlan[];
  /** Field plans indexed by field number. */
  readonly byNumber: (FieldPlan | undefined)[];
  readonly special: Special;
}

const presence = (presenceFile as unknown as { fields: Record<string, number[]> }).fields;
const plans = new Map<string, MessagePlan>();

function valueType(type: string): ValueType {
  switch (type) {
    case "string":
      return { kind: Kind.String, special: Special.None, wire: WIRE_LEN };
    case "bytes":
      return { kind: Kind.Bytes, special: Special.None, wire: WIRE_LEN };
    case "bool":
      return { kind: Kind.Bool, special: Special.None, wire: WIRE_VARINT };
    case "double":
      return { kind: Kind.Double, special: Special.None, wire: WIRE_FIXED64 };
    case "int32":
    case "int64":
    case "uint32":
    case "uint64":
      return { kind: Kind.Int, special: Special.None, wire: WIRE_VARINT };
  }
  if (getProtoMessage(type) === undefined) throw new Error(`protobuf: unsupported field type ${type}`);
  const special = specialOf(type);
  return { kind: special === Special.None ? Kind.Message : Kind.Special, message: type, special, wire: WIRE_LEN };
}

/** The compiled plan of a message (cached); throws for an unknown message. */
export function planFor(name: string): MessagePlan {
  const cached = plans.get(name);
  if (cached !== undefined) return cached;
  const msg = getProtoMessage(name);
  if (msg === undefined) throw new Error(`protobuf: unknown message ${name}`);
  const keep = new Set(presence[name] ?? []);
  const def = definitionForProtoMessage(name);
  const required = new Set((def === undefined ? undefined : getDefinition(def)?.required) ?? []);
  const fields: FieldPlan[] = [];
  const byNumber: (FieldPlan | undefined)[] = [];
  const plan: MessagePlan = { name, fields, byNumber, special: specialOf(name) };
  plans.set(name, plan);
  for (const f of msg.fields) {
    const p = fieldPlan(f, keep, required);
    fields.push(p);
    byNumber[f.number] = p;
  }
  return plan;
}

function fieldPlan(f: ProtoField, keep: Set<number>, required: Set<string>): FieldPlan {
  const label = f.label === "map" ? Label.Map : f.label === "repeated" ? Label.Repeated : Label.Optional;
  const key = f.jsonName ?? f.name;
  if (label === Label.Map) {
    const value = valueType(f.mapValue ?? f.type);
    return {
      kind: Kind.Message,
      special: Special.None,
      wire: WIRE_LEN,
      key,
      number: f.number,
      label,
      inline: false,
      tag: tagBytes(f.number, WIRE_LEN),
      keepZero: true,
      value,
      valueTag: tagBytes(2, value.wire),
    };
  }
  const vt = valueType(f.type);
  return {
    ...vt,
    key,
    number: f.number,
    label,
    inline: f.inline === true,
    tag: tagBytes(f.number, vt.wire),
    keepZero: keep.has(f.number) || required.has(key),
  };
}

function subPlan(f: { plan?: MessagePlan; message?: string }): MessagePlan {
  return (f.plan ??= planFor(f.message!));
}

// ---------------------------------------------------------------- encoding

/** Writes the body of message `plan` from its JSON object (unknown keys are dropped). */
export function writeMessage(w: Writer, plan: MessagePlan, obj: Record<string, unknown>): void {
  if (plan.special !== Special.None) {
    writeSpecial(w, plan.special, obj, (w2, s) => writeSchemaProps(w2, plan.name, s));
    return;
  }
  const fields = plan.fields;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i];
    if (f.inline) {
      // An embedded Go struct: always written (as Go does), from the parent's own keys.
      w.raw(f.tag);
      const mark = w.beginLength();
      writeMessage(w, subPlan(f), obj);
      w.endLength(mark);
      continue;
    }
    const v = obj[f.key];
    if (v === undefined || v === null) continue;
    if (f.label === Label.Optional) {
      writeValue(w, f, f.tag, v);
    } else if (f.label === Label.Repeated) {
      if (!Array.isArray(v)) continue;
      for (let j = 0; j < v.length; j++) {
        const e = v[j];
        if (e === undefined || e === null) {
          if (f.kind === Kind.Message) writeValue(w, f, f.tag, {});
          continue;
        }
        writeValue(w, f, f.tag, e);
      }
    } else {
      if (typeof v !== "object") continue;
      const map = v as Record<string, unknown>;
      const keys = Object.keys(map).sort();
      const vt = f.value!;
      for (let j = 0; j < keys.length; j++) {
        const k = keys[j];
        const mv = map[k];
        w.raw(f.tag);
        const mark = w.beginLength();
        w.ensure(1);
        w.buf[w.pos++] = 0x0a;
        w.string(k);
        if (mv === undefined || mv === null) {
          // Go writes the zero value of the map's value type.
          if (vt.kind === Kind.String || vt.kind === Kind.Bytes || vt.kind === Kind.Message) {
            w.raw(f.valueTag!);
            w.ensure(1);
            w.buf[w.pos++] = 0;
          }
        } else {
          writeValue(w, vt as FieldPlan, f.valueTag!, mv);
        }
        w.endLength(mark);
      }
    }
  }
}

function writeValue(w: Writer, f: ValueType & { plan?: MessagePlan }, tag: Uint8Array, v: unknown): void {
  switch (f.kind) {
    case Kind.String:
      w.raw(tag);
      w.string(typeof v === "string" ? v : String(v));
      return;
    case Kind.Int: {
      const n = typeof v === "number" ? v : Number(v);
      if (!Number.isFinite(n)) return;
      w.raw(tag);
      w.int(Math.trunc(n));
      return;
    }
    case Kind.Bool:
      w.raw(tag);
      w.ensure(1);
      w.buf[w.pos++] = v === true ? 1 : 0;
      return;
    case Kind.Double: {
      const n = typeof v === "number" ? v : Number(v);
      w.raw(tag);
      w.double(n);
      return;
    }
    case Kind.Bytes:
      w.raw(tag);
      w.bytes(typeof v === "string" ? Buffer.from(v, "base64") : Buffer.alloc(0));
      return;
    case Kind.Message: {
      if (typeof v !== "object" || Array.isArray(v)) return;
      w.raw(tag);
      const mark = w.beginLength();
      writeMessage(w, subPlan(f), v as Record<string, unknown>);
      w.endLength(mark);
      return;
    }
    case Kind.Special: {
      w.raw(tag);
      const mark = w.beginLength();
      const name = f.message!;
      writeSpecial(w, f.special, v, (w2, s) => writeSchemaProps(w2, name, s));
      w.endLength(mark);
      return;
    }
  }
}

function writeSchemaProps(w: Writer, wrapper: string, schema: unknown): void {
  if (schema === null || typeof schema !== "object") return;
  writeMessage(w, planFor(schemaPropsMessageOf(wrapper)), schema as Record<string, unknown>);
}

// ---------------------------------------------------------------- decoding

export type EmbeddedDecoder = (raw: Buffer) => unknown;

/**
 * Reads a message body (r.pos .. end) into `target` (a fresh object, or the parent's object
 * for an inline field). Unknown field numbers are skipped.
 */
export function readMessage(
  r: Reader,
  end: number,
  plan: MessagePlan,
  target: Record<string, unknown>,
  embedded: EmbeddedDecoder,
): Record<string, unknown> {
  const byNumber = plan.byNumber;
  while (r.pos < end) {
    const key = r.uvarint();
    const num = key >>> 3;
    const wire = key & 7;
    if (num === 0) throw new DecodeError(`protobuf: illegal field number 0 in ${shortName(plan.name)}`);
    const f = num < byNumber.length ? byNumber[num] : undefined;
    if (f === undefined) {
      r.skip(wire);
      continue;
    }
    if (f.inline) {
      expectWire(wire, WIRE_LEN, f, plan);
      const e = r.lengthEnd();
      readMessage(r, e, subPlan(f), target, embedded);
      r.pos = e;
      continue;
    }
    if (f.label === Label.Optional) {
      expectWire(wire, f.wire, f, plan);
      const v = readValue(r, f, embedded);
      if (!f.keepZero && f.kind !== Kind.Special && (v === "" || v === 0 || v === false)) continue;
      target[f.key] = v;
    } else if (f.label === Label.Repeated) {
      let list = target[f.key] as unknown[] | undefined;
      if (list === undefined) target[f.key] = list = [];
      if (wire === WIRE_LEN && f.wire !== WIRE_LEN) {
        // Packed scalars (not written by Go's proto2 code, but valid protobuf).
        const e = r.lengthEnd();
        while (r.pos < e) list.push(readValue(r, f, embedded));
        if (r.pos !== e) throw new DecodeError("protobuf: packed field overruns its length");
        continue;
      }
      expectWire(wire, f.wire, f, plan);
      list.push(readValue(r, f, embedded));
    } else {
      expectWire(wire, WIRE_LEN, f, plan);
      let map = target[f.key] as Record<string, unknown> | undefined;
      if (map === undefined) target[f.key] = map = {};
      readMapEntry(r, f, map, embedded);
    }
  }
  if (r.pos !== end) throw new DecodeError(`protobuf: ${shortName(plan.name)} overruns its length`);
  return target;
}

function readMapEntry(r: Reader, f: FieldPlan, map: Record<string, unknown>, embedded: EmbeddedDecoder): void {
  const end = r.lengthEnd();
  const vt = f.value!;
  let k = "";
  let v: unknown = undefined;
  while (r.pos < end) {
    const key = r.uvarint();
    const num = key >>> 3;
    const wire = key & 7;
    if (num === 1) {
      if (wire !== WIRE_LEN) throw new DecodeError(`protobuf: wrong wire type ${wire} for map key of ${f.key}`);
      k = r.string();
    } else if (num === 2) {
      if (wire !== vt.wire) throw new DecodeError(`protobuf: wrong wire type ${wire} for map value of ${f.key}`);
      v = readValue(r, vt, embedded);
    } else {
      r.skip(wire);
    }
  }
  if (r.pos !== end) throw new DecodeError(`protobuf: map entry of ${f.key} overruns its length`);
  if (v === undefined) v = zeroOf(vt, embedded);
  map[k] = v;
}

function zeroOf(vt: ValueType & { plan?: MessagePlan }, embedded: EmbeddedDecoder): unknown {
  switch (vt.kind) {
    case Kind.String:
    case Kind.Bytes:
      return "";
    case Kind.Int:
    case Kind.Double:
      return 0;
    case Kind.Bool:
      return false;
    case Kind.Message:
      return {};
    case Kind.Special: {
      const r = new Reader(Buffer.alloc(0));
      return readSpecial(r, 0, vt.special, () => null, embedded);
    }
  }
}

function readValue(r: Reader, f: ValueType & { plan?: MessagePlan }, embedded: EmbeddedDecoder): unknown {
  switch (f.kind) {
    case Kind.String:
      return r.string();
    case Kind.Int:
      return r.int();
    case Kind.Bool:
      return r.uvarint() !== 0;
    case Kind.Double:
      return r.double();
    case Kind.Bytes:
      return r.bytes().toString("base64");
    case Kind.Message: {
      const e = r.lengthEnd();
      const obj = readMessage(r, e, subPlan(f), {}, embedded);
      r.pos = e;
      return obj;
    }
    case Kind.Special: {
      const e = r.lengthEnd();
      const name = f.message!;
      const v = readSpecial(
        r,
        e,
        f.special,
        (r2, e2) => {
          const o = readMessage(r2, e2, planFor(schemaPropsMessageOf(name)), {}, embedded);
          r2.pos = e2;
          return o;
        },
        embedded,
      );
      r.pos = e;
      return v;
    }
  }
}

function expectWire(wire: number, want: number, f: FieldPlan, plan: MessagePlan): void {
  if (wire !== want) throw new DecodeError(`protobuf: wrong wire type ${wire} for field ${f.key} of ${shortName(plan.name)}`);
}

function shortName(message: string): string {
  return message.slice(message.lastIndexOf(".") + 1);
}
