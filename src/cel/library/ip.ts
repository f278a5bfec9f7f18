// The Kubernetes IP library (k8s.io/apiserver/pkg/cel/library, ip; on since 1.30): ip(),
// isIP(), ip.isCanonical(), family, isUnspecified, isLoopback, isLinkLocalMulticast,
// isLinkLocalUnicast, isGlobalUnicast, string(ip). Parsing and printing follow Go's net/netip
// (ParseAddr, Addr.String) with their exact error texts; zones and IPv4-mapped IPv6 are refused.
import { memberOverload, overload, type CelLibrary } from "../library.js";
import { BoolType, IntType, opaque, StringType, typeOf } from "../types.js";
import { CelTypeValue, type CelOpaque, type CelValue } from "../value.js";
import { goQuote } from "../../apimachinery/validation.js";
import { stringTraversalCostFactor } from "../cost/constants.js";
import { actualSize, celError, nominalCost, stringParseCost } from "./k8s-common.js";

export const IPType = opaque("net.IP");

/** An address as netip.Addr holds it: 4 or 16 bytes, and a zone (IPv6 only). */
export interface Addr {
  readonly bytes: Uint8Array;
  readonly zone: string;
}

class AddrError extends Error {}

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

function parseIPv6(input: string): Addr {
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
        return parseIPv6(s);
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

/** A net.IP value. */
export class IP implements CelOpaque {
  readonly celType = IPType;
  constructor(readonly addr: Addr) {}
  equals(other: CelOpaque): boolean {
    return other instanceof IP && addrEqual(this.addr, other.addr);
  }
  /** Upstream's IP.Size (bytes of the address), used by runtime costs. */
  celSize(): number {
    return this.addr.bytes.length;
  }
  toString(): string {
    return formatAddr(this.addr);
  }
  get is4(): boolean {
    return this.addr.bytes.length === 4;
  }
  isUnspecified(): boolean {
    return this.addr.bytes.every((x) => x === 0);
  }
  isLoopback(): boolean {
    const b = this.addr.bytes;
    if (b.length === 4) return b[0] === 127;
    return b.subarray(0, 15).every((x) => x === 0) && b[15] === 1;
  }
  isMulticast(): boolean {
    const b = this.addr.bytes;
    return b.length === 4 ? (b[0]! & 0xf0) === 0xe0 : b[0] === 0xff;
  }
  isLinkLocalMulticast(): boolean {
    const b = this.addr.bytes;
    return b.length === 4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02;
  }
  isLinkLocalUnicast(): boolean {
    const b = this.addr.bytes;
    return b.length === 4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80;
  }
  isGlobalUnicast(): boolean {
    const b = this.addr.bytes;
    if (b.length === 4 && (this.isUnspecified() || b.every((x) => x === 255))) return false;
    return !this.isUnspecified() && !this.isLoopback() && !this.isMulticast() && !this.isLinkLocalUnicast();
  }
}

/** Upstream's parseIPAddr: netip.ParseAddr, then no zones and no IPv4-mapped IPv6. Throws CelEvalError. */
export function parseIP(raw: string): IP {
  let addr: Addr;
  try {
    addr = parseAddr(raw);
  } catch (e) {
    if (e instanceof AddrError) celError(`IP Address ${goQuote(raw)} parse error during conversion from string: ${e.message}`);
    throw e;
  }
  if (addr.zone !== "") celError(`IP address ${goQuote(raw)} with zone value is not allowed`);
  if (is4In6(addr)) celError(`IPv4-mapped IPv6 address ${goQuote(raw)} is not allowed`);
  return new IP(addr);
}

function isIP(raw: string): boolean {
  try {
    parseIP(raw);
    return true;
  } catch {
    return false;
  }
}

const asIP = (v: CelValue): IP => v as unknown as IP;

export const ipLibrary: CelLibrary = {
  name: "kubernetes.net.ip",
  functions: [
    { name: "ip", overloads: [overload("string_to_ip", [StringType], IPType, ([s]) => parseIP(s as string), { cost: stringParseCost(0) })] },
    { name: "family", overloads: [memberOverload("ip_family", [IPType], IntType, ([ip]) => (asIP(ip!).is4 ? 4n : 6n), { cost: nominalCost })] },
    {
      name: "ip.isCanonical",
      overloads: [
        overload("ip_is_canonical", [StringType], BoolType, ([s]) => parseIP(s as string).toString() === s, {
          cost: {
            estimate: () => ({ cost: { min: 1, max: 1 } }), // upstream's estimator only applies to member calls
            actual: (args) => Math.ceil(actualSize(args[0]!) * 2 * stringTraversalCostFactor),
          },
        }),
      ],
    },
    { name: "isUnspecified", overloads: [memberOverload("ip_is_unspecified", [IPType], BoolType, ([ip]) => asIP(ip!).isUnspecified(), { cost: nominalCost })] },
    { name: "isLoopback", overloads: [memberOverload("ip_is_loopback", [IPType], BoolType, ([ip]) => asIP(ip!).isLoopback(), { cost: nominalCost })] },
    {
      name: "isLinkLocalMulticast",
      overloads: [memberOverload("ip_is_link_local_multicast", [IPType], BoolType, ([ip]) => asIP(ip!).isLinkLocalMulticast(), { cost: nominalCost })],
    },
    {
      name: "isLinkLocalUnicast",
      overloads: [memberOverload("ip_is_link_local_unicast", [IPType], BoolType, ([ip]) => asIP(ip!).isLinkLocalUnicast(), { cost: nominalCost })],
    },
    {
      name: "isGlobalUnicast",
      overloads: [memberOverload("ip_is_global_unicast", [IPType], BoolType, ([ip]) => asIP(ip!).isGlobalUnicast(), { cost: nominalCost })],
    },
    { name: "isIP", overloads: [overload("is_ip", [StringType], BoolType, ([s]) => isIP(s as string), { cost: stringParseCost(0) })] },
    // cel-go's default cost (1) for the conversion
    { name: "string", overloads: [overload("ip_to_string", [IPType], StringType, ([ip]) => asIP(ip!).toString())] },
  ],
  // `net.IP` names the type (cel.Types(IPType) upstream): `type(ip('1.2.3.4')) == net.IP`
  constants: [{ name: "net.IP", type: typeOf(IPType), value: new CelTypeValue(IPType) }],
};
