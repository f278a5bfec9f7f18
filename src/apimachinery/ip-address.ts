// IP addresses and prefixes as Go's net/netip reads and writes them (ParseAddr, ParsePrefix,
// Addr.String), with Go's error texts: the one parser behind the CEL ip/cidr libraries, service
// IP allocation and the CRD string formats. Not a library (ipaddr.js and the like): those accept
// forms Go refuses (hex, octal and short IPv4 like "127.1") and word their errors otherwise,
// and clients see these texts in CEL errors.
import { goQuote } from "./go-quote.js";

/** An address as netip.Addr holds it: 4 or 16 bytes, and a zone (IPv6 only). */
export interface Addr {
  readonly bytes: Uint8Array;
  readonly zone: string;
}

/** A string that is not an address; the message is Go's. */
export class AddrError extends Error {}

function addrError(input: string, msg: string, at?: string): AddrError {
  return new AddrError(`ParseAddr(${goQuote(input)}): ${msg}` + (at ? ` (at ${goQuote(at)})` : ""));
}

function parseIPv4Fields(input: string, off: number, end: number, out: Uint8Array, at: number): void {
  const s = input.slice(off, end);
  let val = 0;
  let pos = 0;
  let digLen = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digLen === 1 && val === 0) throw addrError(input, "IPv4 field has octet with leading zero");
      val = val * 10 + (c - 48);
      digLen++;
      if (val > 255) throw addrError(input, "IPv4 field has value >255");
    } else if (c === 46) {
      if (i === 0 || i === s.length - 1 || s.charCodeAt(i - 1) === 46) {
        throw addrError(input, "IPv4 field must have at least one digit", s.slice(i));
      }
      if (pos === 3) throw addrError(input, "IPv4 address too long");
      out[at + pos] = val;
      pos++;
      val = 0;
      digLen = 0;
    } else {
      throw addrError(input, "unexpected character", s.slice(i));
    }
  }
  if (pos < 3) throw addrError(input, "IPv4 address too short");
  out[at + 3] = val;
}

function hexVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

function parseIPv6Fields(input: string): Addr {
  let s = input;
  let zone = "";
  const pct = s.indexOf("%");
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === "") throw addrError(input, "zone must be a non-empty string");
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ":" && s[1] === ":") {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return { bytes: ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const h = hexVal(s.charCodeAt(off));
      if (h < 0) break;
      acc = acc * 16 + h;
      if (off > 3) throw addrError(input, "each group must have 4 or less digits", s);
      if (acc > 0xffff) throw addrError(input, "IPv6 field has value >=2^16", s);
    }
    if (off === 0) throw addrError(input, "each colon-separated field must have at least one digit", s);
    if (off < s.length && s[off] === ".") {
      if (ellipsis < 0 && i !== 12) throw addrError(input, "embedded IPv4 address must replace the final 2 fields of the address", s);
      if (i + 4 > 16) throw addrError(input, "too many hex fields to fit an embedded IPv4 at the end of the address", s);
      let end = input.length;
      if (zone.length > 0) end -= zone.length + 1;
      parseIPv4Fields(input, end - s.length, end, ip, i);
      s = "";
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ":") throw addrError(input, "unexpected character, want colon", s);
    if (s.length === 1) throw addrError(input, "colon must be followed by more characters", s);
    s = s.slice(1);
    if (s[0] === ":") {
      if (ellipsis >= 0) throw addrError(input, "multiple :: in address", s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) throw addrError(input, "trailing garbage after address", s);
  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, "address string too short");
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    throw addrError(input, "the :: must expand to at least one field of zeros", s);
  }
  return { bytes: ip, zone };
}

/** Go's netip.ParseAddr; throws an Error whose message is Go's. */
export function parseAddr(s: string): Addr {
  for (let i = 0; i < s.length; i++) {
    switch (s[i]) {
      case ".": {
        const b = new Uint8Array(4);
        parseIPv4Fields(s, 0, s.length, b, 0);
        return { bytes: b, zone: "" };
      }
      case ":":
        return parseIPv6Fields(s);
      case "%":
        throw addrError(s, "missing IPv6 address");
    }
  }
  throw addrError(s, "unable to parse IP");
}

export function is4In6(a: Addr): boolean {
  if (a.bytes.length !== 16) return false;
  for (let i = 0; i < 10; i++) if (a.bytes[i] !== 0) return false;
  return a.bytes[10] === 0xff && a.bytes[11] === 0xff;
}

/** Go's Addr.String (RFC 5952 for IPv6: lower case, longest run of ≥2 zero groups as ::). */
export function formatAddr(a: Addr): string {
  const b = a.bytes;
  if (b.length === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  if (is4In6(a)) return `::ffff:${b[12]}.${b[13]}.${b[14]}.${b[15]}` + (a.zone ? `%${a.zone}` : "");
  const groups: number[] = [];
  for (let i = 0; i < 8; i++) groups.push((b[2 * i]! << 8) | b[2 * i + 1]!);
  let zeroStart = -1;
  let zeroEnd = -1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i >= 2 && j - i > zeroEnd - zeroStart) {
      zeroStart = i;
      zeroEnd = j;
    }
  }
  let out = "";
  for (let i = 0; i < 8; i++) {
    if (i === zeroStart) {
      out += "::";
      i = zeroEnd;
      if (i >= 8) break;
    } else if (i > 0) out += ":";
    out += groups[i]!.toString(16);
  }
  return out + (a.zone ? `%${a.zone}` : "");
}

export function addrEqual(a: Addr, b: Addr): boolean {
  if (a.bytes.length !== b.bytes.length || a.zone !== b.zone) return false;
  for (let i = 0; i < a.bytes.length; i++) if (a.bytes[i] !== b.bytes[i]) return false;
  return true;
}

/** The address with every bit past the first `bits` cleared (netip.Prefix.Masked). */
export function maskAddr(a: Addr, bits: number): Addr {
  const out = new Uint8Array(a.bytes.length);
  for (let i = 0; i < out.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - 8 * i));
    out[i] = a.bytes[i]! & ((0xff << (8 - keep)) & 0xff);
  }
  return { bytes: out, zone: "" };
}

/** A prefix as netip.Prefix holds it: the address keeps its host bits (maskAddr clears them). */
export interface Prefix {
  readonly addr: Addr;
  readonly bits: number;
}

/** Go's netip.ParsePrefix; throws an Error with Go's message. */
export function parsePrefix(s: string): Prefix {
  const fail = (msg: string): never => {
    throw new Error(`netip.ParsePrefix(${goQuote(s)}): ${msg}`);
  };
  const i = s.lastIndexOf("/");
  if (i < 0) fail("no '/'");
  let addr: Addr;
  try {
    addr = parseAddr(s.slice(0, i));
  } catch (e) {
    return fail((e as Error).message);
  }
  if (addr.bytes.length === 16 && addr.zone !== "") fail("IPv6 zones cannot be present in a prefix");
  const bitsStr = s.slice(i + 1);
  if (bitsStr.length > 1 && (bitsStr[0]! < "1" || bitsStr[0]! > "9")) fail("bad bits after slash: " + goQuote(bitsStr));
  // strconv.Atoi: an optional sign then decimal digits
  if (!/^[+-]?[0-9]+$/.test(bitsStr)) fail("bad bits after slash: " + goQuote(bitsStr));
  const bits = Number(bitsStr);
  if (!Number.isSafeInteger(bits)) fail("bad bits after slash: " + goQuote(bitsStr));
  const maxBits = addr.bytes.length * 8;
  if (bits < 0 || bits > maxBits) fail("prefix length out of range");
  return { addr, bits };
}

/** parseAddr, or undefined for a string that is not an address. */
export function tryParseAddr(s: string): Addr | undefined {
  try {
    return parseAddr(s);
  } catch (e) {
    if (e instanceof AddrError) return undefined;
    throw e;
  }
}

/** A dotted-quad IPv4 address as netip reads it (no leading zeros, no zone), else undefined. */
export function parseIPv4(s: string): Addr | undefined {
  const a = tryParseAddr(s);
  return a?.bytes.length === 4 ? a : undefined;
}

/**
 * An IPv4 address as k8s.io/utils/net's ParseIPSloppy reads it for the CRD formats: leading zeros
 * allowed (read as decimal), at most three digits a field.
 */
export function parseIPv4Sloppy(s: string): Addr | undefined {
  const fields = s.split(".");
  if (fields.length !== 4 || !fields.every((f) => /^[0-9]{1,3}$/.test(f))) return undefined;
  return parseIPv4(fields.map((f) => String(Number(f))).join("."));
}

/**
 * An IPv6 address (an embedded IPv4 tail allowed), else undefined. A zone of letters, digits,
 * `.`, `:` and `-` is allowed, as kapi's validation has always taken it (node:net's isIPv6);
 * Go's net.ParseIP would refuse any zone.
 */
export function parseIPv6(s: string): Addr | undefined {
  const a = s.includes(":") ? tryParseAddr(s) : undefined;
  if (a?.bytes.length !== 16) return undefined;
  return a.zone === "" || /^[0-9A-Za-z.:-]+$/.test(a.zone) ? a : undefined;
}

/** An IPv4 address as a 32-bit number (for ranges and offsets). */
export function ipv4Number(a: Addr): number {
  return ((a.bytes[0]! << 24) >>> 0) + (a.bytes[1]! << 16) + (a.bytes[2]! << 8) + a.bytes[3]!;
}

/** The IPv4 address of a 32-bit number, dotted. */
export function ipv4OfNumber(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join(".");
}

/**
 * Go's IP.IsGlobalUnicast: neither unspecified, loopback, multicast, link-local unicast nor the
 * IPv4 broadcast address (IPv4-mapped IPv6 addresses judged as IPv4). Upstream proxies only to
 * such addresses ("address not allowed" otherwise).
 */
export function isGlobalUnicast(a: Addr): boolean {
  const b = a.bytes;
  if (b.length === 4 || is4In6(a)) {
    const [x, y, z, w] = b.length === 4 ? [b[0]!, b[1]!, b[2]!, b[3]!] : [b[12]!, b[13]!, b[14]!, b[15]!];
    if (x === 255 && y === 255 && z === 255 && w === 255) return false;
    if (x === 0 && y === 0 && z === 0 && w === 0) return false;
    if (x === 127) return false;
    if (x >= 224 && x <= 239) return false;
    return !(x === 169 && y === 254);
  }
  if (b.every((v) => v === 0)) return false;
  if (b.slice(0, 15).every((v) => v === 0) && b[15] === 1) return false;
  if (b[0] === 0xff) return false;
  return !(b[0] === 0xfe && (b[1]! & 0xc0) === 0x80);
}
