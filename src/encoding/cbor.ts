// CBOR (RFC 8949) as kube-apiserver speaks it behind the CBORServingAndStorage gate
// (application/cbor; watch streams application/cbor-seq): every document starts with the
// self-described tag 55799; strings and map keys are byte strings; map keys sorted bytewise
// (core deterministic encoding); integers in their shortest form; floats in the shortest width
// that keeps their value; no indefinite lengths; NaN and infinities refused. Decoding accepts
// text or byte strings, refuses duplicate map keys, indefinite lengths and unknown tags.
import type { Codec } from "./codec.js";
import { DecodeError } from "./decode-error.js";
import { goQuote } from "../apimachinery/go-quote.js";

const selfDescribed = Buffer.from([0xd9, 0xd9, 0xf7]);
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** One growable buffer for a whole document. */
class Writer {
  private buf = Buffer.allocUnsafe(256);
  private pos = 0;

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  head(major: number, n: number): void {
    const m = major << 5;
    this.ensure(9);
    if (n < 24) this.buf[this.pos++] = m | n;
    else if (n < 0x100) {
      this.buf[this.pos++] = m | 24;
      this.buf[this.pos++] = n;
    } else if (n < 0x10000) {
      this.buf[this.pos++] = m | 25;
      this.pos = this.buf.writeUInt16BE(n, this.pos);
    } else if (n < 0x100000000) {
      this.buf[this.pos++] = m | 26;
      this.pos = this.buf.writeUInt32BE(n, this.pos);
    } else {
      this.buf[this.pos++] = m | 27;
      this.pos = this.buf.writeBigUInt64BE(BigInt(n), this.pos);
    }
  }

  float(width: 2 | 4 | 8, v: number): void {
    this.ensure(9);
    if (width === 2) {
      this.buf[this.pos++] = 0xf9;
      this.pos = this.buf.writeUInt16BE(v, this.pos);
    } else if (width === 4) {
      this.buf[this.pos++] = 0xfa;
      this.pos = this.buf.writeFloatBE(v, this.pos);
    } else {
      this.buf[this.pos++] = 0xfb;
      this.pos = this.buf.writeDoubleBE(v, this.pos);
    }
  }

  /** A string as a byte string. */
  string(str: string): void {
    const n = Buffer.byteLength(str, "utf8");
    this.head(2, n);
    this.ensure(n);
    this.pos += this.buf.write(str, this.pos, n, "utf8");
  }

  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
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
  if (h !== undefined) w.float(2, h);
  else if (Math.fround(v) === v) w.float(4, v);
  else w.float(8, v);
}

/**
 * Byte-string keys sorted bytewise by their encoding: the header orders them by byte length
 * first, then their bytes decide.
 */
function compareKeys(a: string, b: string): number {
  const la = Buffer.byteLength(a, "utf8");
  const lb = Buffer.byteLength(b, "utf8");
  if (la !== lb) return la - lb;
  // ASCII (the usual key): code units order as bytes do.
  if (la === a.length && lb === b.length) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

function writeValue(w: Writer, v: unknown): void {
  if (v === null || v === undefined) w.byte(0xf6);
  else if (v === false) w.byte(0xf4);
  else if (v === true) w.byte(0xf5);
  else if (typeof v === "number") writeNumber(w, v);
  else if (typeof v === "string") w.string(v);
  else if (Array.isArray(v)) {
    w.head(4, v.length);
    for (const x of v) writeValue(w, x);
  } else if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort(compareKeys);
    w.head(5, keys.length);
    for (const k of keys) {
      w.string(k);
      writeValue(w, o[k]);
    }
  } else throw new Error(`cbor: cannot encode a ${typeof v}`);
}

/** One CBOR document (self-described) of a JSON-like value. */
export function encodeCbor(v: unknown): Buffer {
  const w = new Writer();
  w.bytes(selfDescribed);
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
          if (Object.hasOwn(out, k)) throw new DecodeError(`cbor: found duplicate map key ${goQuote(k)}`);
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
