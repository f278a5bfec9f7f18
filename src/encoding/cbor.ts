// CBOR (RFC 8949) as kube-apiserver speaks it behind the CBORServingAndStorage gate
// (application/cbor; watch streams application/cbor-seq): every document starts with the
// self-described tag 55799; strings and map keys are byte strings; map keys sorted bytewise
// (core deterministic encoding); integers in their shortest form; floats in the shortest width
// that keeps their value; no indefinite lengths; NaN and infinities refused. Decoding accepts
// text or byte strings, refuses duplicate map keys, indefinite lengths and unknown tags.
import type { Codec } from "./codec.js";
import { DecodeError } from "./decode-error.js";

const selfDescribed = Buffer.from([0xd9, 0xd9, 0xf7]);
const utf8 = new TextDecoder("utf-8", { fatal: true });

class Writer {
  private chunks: Buffer[] = [];
  private size = 0;

  push(b: Buffer): void {
    this.chunks.push(b);
    this.size += b.length;
  }

  head(major: number, n: number): void {
    const m = major << 5;
    if (n < 24) this.push(Buffer.from([m | n]));
    else if (n < 0x100) this.push(Buffer.from([m | 24, n]));
    else if (n < 0x10000) this.push(Buffer.from([m | 25, n >> 8, n & 0xff]));
    else if (n < 0x100000000) {
      const b = Buffer.alloc(5);
      b[0] = m | 26;
      b.writeUInt32BE(n, 1);
      this.push(b);
    } else {
      const b = Buffer.alloc(9);
      b[0] = m | 27;
      b.writeBigUInt64BE(BigInt(n), 1);
      this.push(b);
    }
  }

  finish(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }
}

/** The float16 bits of `v` when float16 holds it exactly, else undefined. */
function float16Bits(v: number): number | undefined {
  if (v === 0) return Object.is(v, -0) ? 0x8000 : 0;
  const sign = v < 0 ? 0x8000 : 0;
  const a = Math.abs(v);
  const exp = Math.floor(Math.log2(a));
  if (exp > 15) return undefined;
  if (exp < -14) {
    // subnormal: a = m × 2^-24
    const m = a * 2 ** 24;
    return Number.isInteger(m) && m < 0x400 ? sign | m : undefined;
  }
  const mant = (a / 2 ** exp - 1) * 1024;
  if (!Number.isInteger(mant) || mant < 0 || mant >= 1024) return undefined;
  return sign | ((exp + 15) << 10) | mant;
}

function writeNumber(w: Writer, v: number): void {
  if (!Number.isFinite(v)) throw new Error(`cbor: cannot encode ${v}`);
  if (Number.isInteger(v) && !Object.is(v, -0) && Number.isSafeInteger(v)) {
    if (v >= 0) w.head(0, v);
    else w.head(1, -1 - v);
    return;
  }
  const h = float16Bits(v);
  if (h !== undefined) {
    w.push(Buffer.from([0xf9, h >> 8, h & 0xff]));
    return;
  }
  if (Math.fround(v) === v) {
    const b = Buffer.alloc(5);
    b[0] = 0xfa;
    b.writeFloatBE(v, 1);
    w.push(b);
    return;
  }
  const b = Buffer.alloc(9);
  b[0] = 0xfb;
  b.writeDoubleBE(v, 1);
  w.push(b);
}

function byteString(s: string): Buffer {
  const bytes = Buffer.from(s, "utf8");
  const w = new Writer();
  w.head(2, bytes.length);
  w.push(bytes);
  return w.finish();
}

function writeValue(w: Writer, v: unknown): void {
  if (v === null || v === undefined) w.push(Buffer.from([0xf6]));
  else if (v === false) w.push(Buffer.from([0xf4]));
  else if (v === true) w.push(Buffer.from([0xf5]));
  else if (typeof v === "number") writeNumber(w, v);
  else if (typeof v === "string") w.push(byteString(v));
  else if (Array.isArray(v)) {
    w.head(4, v.length);
    for (const x of v) writeValue(w, x);
  } else if (typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    const keyed = entries.map(([k, x]) => [byteString(k), x] as const).sort((a, b) => Buffer.compare(a[0], b[0]));
    w.head(5, keyed.length);
    for (const [k, x] of keyed) {
      w.push(k);
      writeValue(w, x);
    }
  } else throw new Error(`cbor: cannot encode a ${typeof v}`);
}

/** One CBOR document (self-described) of a JSON-like value. */
export function encodeCbor(v: unknown): Buffer {
  const w = new Writer();
  w.push(selfDescribed);
  writeValue(w, v);
  return w.finish();
}

class Reader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}

  private need(n: number): void {
    if (this.pos + n > this.buf.length) throw new DecodeError("cbor: unexpected EOF");
  }

  private argument(info: number): number {
    if (info < 24) return info;
    if (info === 24) {
      this.need(1);
      return this.buf[this.pos++];
    }
    if (info === 25) {
      this.need(2);
      const v = this.buf.readUInt16BE(this.pos);
      this.pos += 2;
      return v;
    }
    if (info === 26) {
      this.need(4);
      const v = this.buf.readUInt32BE(this.pos);
      this.pos += 4;
      return v;
    }
    if (info === 27) {
      this.need(8);
      const v = this.buf.readBigUInt64BE(this.pos);
      this.pos += 8;
      if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new DecodeError("cbor: integer out of range");
      return Number(v);
    }
    if (info === 31) throw new DecodeError("cbor: indefinite-length items are not allowed");
    throw new DecodeError(`cbor: invalid additional information ${info}`);
  }

  private text(n: number): string {
    this.need(n);
    const bytes = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    try {
      return utf8.decode(bytes);
    } catch {
      throw new DecodeError("cbor: invalid UTF-8 string");
    }
  }

  value(depth = 0): unknown {
    if (depth > 10_000) throw new DecodeError("cbor: exceeded max nested level");
    this.need(1);
    const ib = this.buf[this.pos++];
    const major = ib >> 5;
    const info = ib & 0x1f;
    switch (major) {
      case 0:
        return this.argument(info);
      case 1:
        return -1 - this.argument(info);
      case 2:
      case 3:
        return this.text(this.argument(info));
      case 4: {
        const n = this.argument(info);
        const out: unknown[] = [];
        for (let i = 0; i < n; i++) out.push(this.value(depth + 1));
        return out;
      }
      case 5: {
        const n = this.argument(info);
        const out: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) {
          const k = this.value(depth + 1);
          if (typeof k !== "string") throw new DecodeError("cbor: map keys must be strings");
          if (Object.hasOwn(out, k)) throw new DecodeError(`cbor: found duplicate map key ${JSON.stringify(k)}`);
          out[k] = this.value(depth + 1);
        }
        return out;
      }
      case 6: {
        const tag = this.argument(info);
        // 55799 only says "this is CBOR"; 21–23 ask a later base64/hex form of bytes, which a
        // byte string decoded into a value already is.
        if (tag === 55799 || tag === 21 || tag === 22 || tag === 23) return this.value(depth + 1);
        throw new DecodeError(`cbor: unsupported tag ${tag}`);
      }
      default:
        return this.simple(info);
    }
  }

  private simple(info: number): unknown {
    switch (info) {
      case 20:
        return false;
      case 21:
        return true;
      case 22:
        return null;
      case 25: {
        this.need(2);
        const h = this.buf.readUInt16BE(this.pos);
        this.pos += 2;
        return half(h);
      }
      case 26: {
        this.need(4);
        const v = this.buf.readFloatBE(this.pos);
        this.pos += 4;
        return finite(v);
      }
      case 27: {
        this.need(8);
        const v = this.buf.readDoubleBE(this.pos);
        this.pos += 8;
        return finite(v);
      }
      default:
        throw new DecodeError(`cbor: unsupported simple value ${info}`);
    }
  }

  done(): boolean {
    return this.pos >= this.buf.length;
  }
}

function finite(v: number): number {
  if (!Number.isFinite(v)) throw new DecodeError("cbor: floating-point number is not finite");
  return v;
}

function half(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) throw new DecodeError("cbor: floating-point number is not finite");
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** Decodes one CBOR document (a self-described tag allowed); trailing bytes are an error. */
export function decodeCbor(body: Buffer): unknown {
  const r = new Reader(body);
  const v = r.value();
  if (!r.done()) throw new DecodeError("cbor: extraneous data");
  return v;
}

/** Decodes a CBOR sequence (RFC 8742: documents back to back, as a watch stream is). */
export function decodeCborSequence(body: Buffer): unknown[] {
  const r = new Reader(body);
  const out: unknown[] = [];
  while (!r.done()) out.push(r.value());
  return out;
}

export const cborMediaType = "application/cbor";

/** The CBOR codec: documents for objects, a CBOR sequence of WatchEvents for watch streams. */
export const cborCodec: Codec = {
  mediaType: cborMediaType,
  encode: (obj) => encodeCbor(obj),
  decode: (body) => decodeCbor(body),
  encodeWatchEvent: (type, object) => encodeCbor({ type, object }),
  streamContentType: "application/cbor-seq",
};
