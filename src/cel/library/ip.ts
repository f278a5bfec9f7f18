// The Kubernetes IP library (k8s.io/apiserver/pkg/cel/library, ip; on since 1.30): ip(),
// isIP(), ip.isCanonical(), family, isUnspecified, isLoopback, isLinkLocalMulticast,
// isLinkLocalUnicast, isGlobalUnicast, string(ip). Parsing and printing are Go's net/netip
// (apimachinery/ip-address.ts) with their exact error texts; zones and IPv4-mapped IPv6 are refused.
import { memberOverload, overload, type CelLibrary } from "../library.js";
import { BoolType, IntType, opaque, StringType, typeOf } from "../types.js";
import { CelTypeValue, type CelOpaque, type CelValue } from "../value.js";
import { goQuote } from "../../apimachinery/go-quote.js";
import { stringTraversalCostFactor } from "../cost/constants.js";
import { actualSize, celError, nominalCost, stringParseCost } from "./k8s-common.js";
import { AddrError, addrEqual, formatAddr, is4In6, parseAddr, type Addr } from "../../apimachinery/ip-address.js";

export const IPType = opaque("net.IP");

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
