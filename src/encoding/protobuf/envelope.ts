// The Kubernetes protobuf envelope: the magic prefix 6b 38 73 00, then runtime.Unknown
// { typeMeta{apiVersion=1, kind=2}=1, raw=2, contentEncoding=3, contentType=4 }.
// Go's marshaller writes all four fields, the last two as empty strings; so do we.
import { DecodeError } from "../decode-error.js";
import { protoMessageForGVK, getProtoMessage } from "../schema/protobuf-facts.js";
import { Reader, WIRE_LEN, type Writer } from "./wire.js";

export const MAGIC: readonly number[] = [0x6b, 0x38, 0x73, 0x00];

export interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Buffer;
  contentEncoding: string;
  contentType: string;
}

/** Group and version of an apiVersion string ("v1" → core group). */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? { group: "", version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

const messageCache = new Map<string, string | null>();

/**
 * The protobuf message of an apiVersion/kind, or undefined when the kind has none
 * (custom resources, Table, unknown kinds). meta.k8s.io kinds (PartialObjectMetadata…)
 * map to the meta/v1 messages.
 */
export function messageForTypeMeta(apiVersion: string, kind: string): string | undefined {
  const key = apiVersion + "\u0000" + kind;
  let m = messageCache.get(key);
  if (m === undefined) {
    const { group, version } = splitApiVersion(apiVersion);
    m = protoMessageForGVK(group, version, kind) ?? null;
    if (m === null && group === "meta.k8s.io") {
      const meta = `k8s.io.apimachinery.pkg.apis.meta.${version}.${kind}`;
      if (getProtoMessage(meta) !== undefined) m = meta;
      else if (getProtoMessage(`k8s.io.apimachinery.pkg.apis.meta.v1.${kind}`) !== undefined) m = `k8s.io.apimachinery.pkg.apis.meta.v1.${kind}`;
    }
    messageCache.set(key, m);
  }
  return m ?? undefined;
}

/** Writes prefix + Unknown; `writeRaw` writes the raw object bytes. */
export function writeEnvelope(w: Writer, apiVersion: string, kind: string, writeRaw: (w: Writer) => void): void {
  w.ensure(5);
  const buf = w.buf;
  buf[w.pos++] = 0x6b;
  buf[w.pos++] = 0x38;
  buf[w.pos++] = 0x73;
  buf[w.pos++] = 0x00;
  buf[w.pos++] = 0x0a; // typeMeta
  const tm = w.beginLength();
  w.ensure(1);
  w.buf[w.pos++] = 0x0a; // apiVersion
  w.string(apiVersion);
  w.ensure(1);
  w.buf[w.pos++] = 0x12; // kind
  w.string(kind);
  w.endLength(tm);
  w.ensure(1);
  w.buf[w.pos++] = 0x12; // raw
  const raw = w.beginLength();
  writeRaw(w);
  w.endLength(raw);
  w.ensure(4);
  w.buf[w.pos++] = 0x1a; // contentEncoding ""
  w.buf[w.pos++] = 0x00;
  w.buf[w.pos++] = 0x22; // contentType ""
  w.buf[w.pos++] = 0x00;
}

/** Whether bytes start with the protobuf magic prefix. */
export function hasMagic(data: Uint8Array): boolean {
  return data.length >= 4 && data[0] === 0x6b && data[1] === 0x38 && data[2] === 0x73 && data[3] === 0x00;
}

/** Checks the prefix and parses the Unknown envelope (errors worded as upstream's). */
export function readEnvelope(data: Buffer): Envelope {
  if (data.length === 0) throw new DecodeError("empty data");
  if (!hasMagic(data)) {
    throw new DecodeError("provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
  }
  if (data.length === 4) throw new DecodeError("empty body");
  const r = new Reader(data, 4);
  const env: Envelope = { apiVersion: "", kind: "", raw: Buffer.alloc(0), contentEncoding: "", contentType: "" };
  while (r.pos < r.end) {
    const key = r.uvarint();
    const num = key >>> 3;
    const wire = key & 7;
    if (num >= 1 && num <= 4) {
      if (wire !== WIRE_LEN) throw new DecodeError(`protobuf: wrong wire type ${wire} for field ${num} of Unknown`);
      if (num === 1) {
        const end = r.lengthEnd();
        while (r.pos < end) {
          const k2 = r.uvarint();
          const n2 = k2 >>> 3;
          const w2 = k2 & 7;
          if ((n2 === 1 || n2 === 2) && w2 === WIRE_LEN) {
            const s = r.string();
            if (n2 === 1) env.apiVersion = s;
            else env.kind = s;
          } else if (n2 === 1 || n2 === 2) {
            throw new DecodeError(`protobuf: wrong wire type ${w2} for field ${n2} of TypeMeta`);
          } else {
            r.skip(w2);
          }
        }
        if (r.pos !== end) throw new DecodeError("protobuf: TypeMeta overruns its length");
      } else if (num === 2) {
        env.raw = r.bytes();
      } else if (num === 3) {
        env.contentEncoding = r.string();
      } else {
        env.contentType = r.string();
      }
    } else {
      if (num === 0) throw new DecodeError("protobuf: illegal field number 0 in Unknown");
      r.skip(wire);
    }
  }
  return env;
}
