// The ASN.1 DER that kapi's own certificates need (./certs.ts), written and read: node:crypto makes
// keys and signatures and parses certificates, but cannot build one. Loading a general X.509
// library for three certificates cost most of a first start (~250 ms of CPU); these few encodings
// are fixed by X.690 and RFC 5280.

/** One encoded element: tag, definite length, contents. */
export function tlv(tag: number, contents: Uint8Array): Buffer {
  const n = contents.length;
  let len: number[];
  if (n < 0x80) len = [n];
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
    len = [0x80 | bytes.length, ...bytes];
  }
  return Buffer.concat([Buffer.from([tag, ...len]), contents]);
}

export const sequence = (...items: Uint8Array[]) => tlv(0x30, Buffer.concat(items));
export const set = (...items: Uint8Array[]) => tlv(0x31, Buffer.concat(items));
export const octetString = (b: Uint8Array) => tlv(0x04, b);
export const utf8String = (s: string) => tlv(0x0c, Buffer.from(s, "utf8"));
export const boolean = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));
export const nullValue = () => tlv(0x05, Buffer.alloc(0));
/** [n] EXPLICIT: the constructed context tag around a whole element. */
export const explicit = (n: number, inner: Uint8Array) => tlv(0xa0 | n, inner);
/** [n] IMPLICIT over a primitive: the context tag replaces the element's own. */
export const implicit = (n: number, contents: Uint8Array) => tlv(0x80 | n, contents);

/** A non-negative INTEGER from big-endian magnitude bytes (minimal, with a 0 when the top bit is set). */
export function unsignedInteger(magnitude: Uint8Array): Buffer {
  let i = 0;
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++;
  const m = magnitude.subarray(i);
  return tlv(0x02, m.length > 0 && m[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), m]) : Buffer.from(m.length ? m : [0]));
}

export const smallInteger = (v: number) => unsignedInteger(Buffer.from([v >> 24, (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff]));

export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split(".").map(Number);
  const body: number[] = [arcs[0]! * 40 + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const base128: number[] = [];
    for (let v = arc; ; v = Math.floor(v / 128)) {
      base128.unshift((v & 0x7f) | (base128.length ? 0x80 : 0));
      if (v < 128) break;
    }
    body.push(...base128);
  }
  return tlv(0x06, Buffer.from(body));
}

/** A BIT STRING of whole bytes (keys, signatures). */
export const bitString = (bytes: Uint8Array) => tlv(0x03, Buffer.concat([Buffer.from([0]), bytes]));

/** A named-bit BIT STRING (X.690 11.2.2: trailing zero bits are dropped), bit 0 first. */
export function namedBits(bits: readonly number[]): Buffer {
  const top = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(top / 8) + 1);
  for (const b of bits) bytes[b >> 3]! |= 0x80 >> (b & 7);
  return tlv(0x03, Buffer.concat([Buffer.from([7 - (top & 7)]), bytes]));
}

/** RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050, always seconds and Z. */
export function time(d: Date): Buffer {
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-:T]/g, "") + "Z";
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), "ascii")) : tlv(0x18, Buffer.from(digits, "ascii"));
}

/** One element as read: its tag, the whole encoding, and its contents. */
export interface DerElement {
  tag: number;
  whole: Buffer;
  contents: Buffer;
}

/** The elements of `buf` one after another; a truncated or indefinite-length one throws. */
export function readElements(buf: Buffer): DerElement[] {
  const out: DerElement[] = [];
  for (let at = 0; at < buf.length; ) {
    if (at + 2 > buf.length) throw new Error("DER: truncated element");
    const tag = buf[at]!;
    let len = buf[at + 1]!;
    let head = 2;
    if (len & 0x80) {
      const n = len & 0x7f;
      if (n === 0 || n > 4 || at + 2 + n > buf.length) throw new Error("DER: unsupported length");
      len = 0;
      for (let i = 0; i < n; i++) len = len * 256 + buf[at + 2 + i]!;
      head += n;
    }
    const end = at + head + len;
    if (end > buf.length) throw new Error("DER: truncated element");
    out.push({ tag, whole: buf.subarray(at, end), contents: buf.subarray(at + head, end) });
    at = end;
  }
  return out;
}
