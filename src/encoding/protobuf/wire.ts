// Protobuf wire format: a growable writer and a bounds-checked reader. Only the wire
// types Kubernetes uses appear: varint (0), fixed64 (1, doubles), length-delimited (2)
// and fixed32 (5, skipped only). Malformed input throws DecodeError.
import { DecodeError } from "../decode-error.js";

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

const TWO_32 = 4294967296;

/** Bytes of a varint holding a non-negative integer below 2^53. */
export function varintSize(v: number): number {
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  if (v < 0x10000000) return 4;
  let n = 4;
  v = Math.floor(v / 0x10000000);
  while (v > 0) {
    n++;
    v = Math.floor(v / 0x80);
  }
  return n;
}

/** Wire bytes of a field key (tag) as a varint. */
export function tagBytes(fieldNumber: number, wireType: number): Uint8Array {
  let v = fieldNumber * 8 + wireType;
  const out: number[] = [];
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Uint8Array.from(out);
}

export class Writer {
  buf: Buffer;
  pos = 0;

  constructor(initial = 1024) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  ensure(extra: number): void {
    const need = this.pos + extra;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Raw bytes (a precomputed tag, a prefix). */
  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < bytes.length; i++) buf[p++] = bytes[i];
    this.pos = p;
  }

  /** Unsigned varint of a non-negative integer below 2^53. */
  uvarint(v: number): void {
    this.ensure(10);
    const buf = this.buf;
    let p = this.pos;
    if (v < TWO_32) {
      v = v >>> 0;
      while (v >= 0x80) {
        buf[p++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      buf[p++] = v;
    } else {
      while (v >= 0x80) {
        buf[p++] = (v % 0x80) | 0x80;
        v = Math.floor(v / 0x80);
      }
      buf[p++] = v;
    }
    this.pos = p;
  }

  /** int32/int64 varint: negative numbers take ten bytes (two's complement over 64 bits). */
  int(v: number): void {
    if (v >= 0) {
      this.uvarint(v);
      return;
    }
    this.ensure(10);
    let big = BigInt.asUintN(64, BigInt(Math.trunc(v)));
    const buf = this.buf;
    let p = this.pos;
    while (big >= 0x80n) {
      buf[p++] = Number(big & 0x7fn) | 0x80;
      big >>= 7n;
    }
    buf[p++] = Number(big);
    this.pos = p;
  }

  double(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  /** Length-prefixed UTF-8 string. */
  string(s: string): void {
    const len = s.length;
    if (len < 128) {
      // Fast path: short ASCII strings are written by hand with a one-byte length.
      this.ensure(len + 1);
      const buf = this.buf;
      const start = this.pos;
      let p = start + 1;
      let i = 0;
      for (; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[p++] = c;
      }
      if (i === len) {
        buf[start] = len;
        this.pos = p;
        return;
      }
    }
    const bytes = Buffer.byteLength(s, "utf8");
    this.uvarint(bytes);
    this.ensure(bytes);
    this.buf.write(s, this.pos, bytes, "utf8");
    this.pos += bytes;
  }

  bytes(b: Uint8Array): void {
    this.uvarint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Starts a length-delimited body: reserves one length byte; pass the result to endLength. */
  beginLength(): number {
    this.ensure(1);
    return this.pos++;
  }

  /** Ends a body started at `mark`, writing its length (moving the body if it needs more bytes). */
  endLength(mark: number): void {
    const start = mark + 1;
    const len = this.pos - start;
    if (len < 0x80) {
      this.buf[mark] = len;
      return;
    }
    const extra = varintSize(len) - 1;
    this.ensure(extra);
    const buf = this.buf;
    buf.copyWithin(start + extra, start, this.pos);
    let p = mark;
    let v = len;
    while (v >= 0x80) {
      buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[p] = v;
    this.pos += extra;
  }

  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

export class Reader {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  /** Varint as a number; values of 2^53 and above lose precision, as JSON numbers do. */
  uvarint(): number {
    const buf = this.buf;
    const end = this.end;
    let p = this.pos;
    let result = 0;
    let shift = 0;
    for (;;) {
      if (p >= end) throw new DecodeError("protobuf: unexpected end of data in varint");
      const b = buf[p++];
      if (shift < 28) {
        result |= (b & 0x7f) << shift;
        if (b < 0x80) {
          this.pos = p;
          return result >>> 0;
        }
        shift += 7;
        continue;
      }
      // Slow path for values needing more than 28 bits.
      this.pos = p - 1;
      return this.longVarint(result >>> 0);
    }
  }

  private longVarint(low28: number): number {
    const buf = this.buf;
    let p = this.pos;
    let result = low28;
    let mul = 0x10000000;
    for (let i = 4; ; i++) {
      if (i >= 10) throw new DecodeError("protobuf: varint overflows 64 bits");
      if (p >= this.end) throw new DecodeError("protobuf: unexpected end of data in varint");
      const b = buf[p++];
      result += (b & 0x7f) * mul;
      mul *= 0x80;
      if (b < 0x80) break;
    }
    this.pos = p;
    return result;
  }

  /** A signed 64-bit varint (int64/int32 on the wire). */
  int(): number {
    const start = this.pos;
    const v = this.uvarint();
    if (v < 2 ** 53) {
      // A negative int64 occupies ten bytes with the top bit set; detect it exactly.
      if (this.pos - start < 10) return v;
    }
    let big = 0n;
    let shift = 0n;
    for (let p = start; p < this.pos; p++) {
      big |= BigInt(this.buf[p] & 0x7f) << shift;
      shift += 7n;
    }
    return Number(BigInt.asIntN(64, big));
  }

  double(): number {
    if (this.pos + 8 > this.end) throw new DecodeError("protobuf: unexpected end of data in fixed64");
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  /** Reads a length prefix and returns the end offset of the body. */
  lengthEnd(): number {
    const len = this.uvarint();
    const end = this.pos + len;
    if (end > this.end) throw new DecodeError(`protobuf: length ${len} runs past the end of the data`);
    return end;
  }

  string(): string {
    const end = this.lengthEnd();
    const s = this.buf.toString("utf8", this.pos, end);
    this.pos = end;
    return s;
  }

  bytes(): Buffer {
    const end = this.lengthEnd();
    const b = this.buf.subarray(this.pos, end);
    this.pos = end;
    return b;
  }

  skip(wireType: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.uvarint();
        return;
      case WIRE_FIXED64:
        this.advance(8);
        return;
      case WIRE_LEN:
        this.pos = this.lengthEnd();
        return;
      case WIRE_FIXED32:
        this.advance(4);
        return;
      default:
        throw new DecodeError(`protobuf: unsupported wire type ${wireType}`);
    }
  }

  private advance(n: number): void {
    if (this.pos + n > this.end) throw new DecodeError("protobuf: unexpected end of data");
    this.pos += n;
  }
}
