// Watch streams in protobuf, as upstream serves `application/vnd.kubernetes.protobuf;stream=watch`:
// each event is one frame, a 4-byte big-endian length then a meta/v1 WatchEvent
// { type=1, object=2 RawExtension{ raw=1 } } written WITHOUT the envelope (the stream
// serializer is the raw one), whose raw bytes are the object in the full envelope
// (prefix + Unknown, as the embedded encoder writes it).
import { DecodeError } from "../decode-error.js";
import { Reader, WIRE_LEN, Writer } from "./wire.js";

/** One frame holding a WatchEvent whose object is `enveloped` (already prefix + Unknown). */
export function watchEventFrame(type: string, enveloped: Uint8Array): Buffer {
  const w = new Writer(enveloped.length + type.length * 3 + 32);
  w.pos = 4;
  w.ensure(1);
  w.buf[w.pos++] = 0x0a; // type
  w.string(type);
  w.ensure(1);
  w.buf[w.pos++] = 0x12; // object (RawExtension)
  const obj = w.beginLength();
  w.ensure(1);
  w.buf[w.pos++] = 0x0a; // raw
  w.bytes(enveloped);
  w.endLength(obj);
  w.buf.writeUInt32BE(w.pos - 4, 0);
  return w.finish();
}

export interface RawWatchEvent {
  type: string;
  /** The object's bytes (prefix + Unknown), or undefined when the event has none. */
  raw: Buffer | undefined;
}

/** Splits a watch stream into its events; a partial or malformed frame throws DecodeError. */
export function readWatchFrames(buf: Buffer): RawWatchEvent[] {
  const out: RawWatchEvent[] = [];
  let p = 0;
  while (p < buf.length) {
    if (p + 4 > buf.length) throw new DecodeError("protobuf watch: truncated frame header");
    const len = buf.readUInt32BE(p);
    const start = p + 4;
    const end = start + len;
    if (end > buf.length) throw new DecodeError(`protobuf watch: frame length ${len} runs past the end of the data`);
    out.push(readWatchEvent(buf, start, end));
    p = end;
  }
  return out;
}

function readWatchEvent(buf: Buffer, start: number, end: number): RawWatchEvent {
  const r = new Reader(buf, start, end);
  const ev: RawWatchEvent = { type: "", raw: undefined };
  while (r.pos < end) {
    const key = r.uvarint();
    const num = key >>> 3;
    const wire = key & 7;
    if ((num === 1 || num === 2) && wire !== WIRE_LEN) throw new DecodeError(`protobuf: wrong wire type ${wire} for WatchEvent field ${num}`);
    if (num === 1) ev.type = r.string();
    else if (num === 2) {
      const e = r.lengthEnd();
      while (r.pos < e) {
        const k2 = r.uvarint();
        if (k2 === 0x0a) ev.raw = r.bytes();
        else r.skip(k2 & 7);
      }
      if (r.pos !== e) throw new DecodeError("protobuf: RawExtension overruns its length");
    } else r.skip(wire);
  }
  return ev;
}
