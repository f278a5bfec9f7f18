// The Kubernetes CIDR library (k8s.io/apiserver/pkg/cel/library, cidr; on since 1.30): cidr(),
// isCIDR(), containsIP (ip or string), containsCIDR (cidr or string), ip(), masked(),
// prefixLength(), string(cidr). Parsing is Go's netip.ParsePrefix (apimachinery/ip-address.ts);
// IPv4-mapped IPv6 is refused; the address keeps its host bits (masked() clears them).
import { memberOverload, overload, type CelLibrary } from "../library.js";
import { BoolType, IntType, opaque, StringType, typeOf } from "../types.js";
import { CelTypeValue, type CelOpaque, type CelValue } from "../value.js";
import { goQuote } from "../../apimachinery/go-quote.js";
import { stringTraversalCostFactor } from "../cost/constants.js";
import { actualSize, addEstimates, celError, multiplyByCostFactor, nominalCost, stringParseCost, MAX_ESTIMATE } from "./k8s-common.js";
import { IP, IPType, parseIP } from "./ip.js";
import { addrEqual, formatAddr, is4In6, maskAddr, parsePrefix, type Addr } from "../../apimachinery/ip-address.js";
import type { ArgEstimate, CallEstimate, OverloadCost } from "../library.js";

export const CIDRType = opaque("net.CIDR");

/** A net.CIDR value (netip.Prefix). */
export class CIDR implements CelOpaque {
  readonly celType = CIDRType;
  constructor(
    readonly addr: Addr,
    readonly bits: number,
  ) {}
  equals(other: CelOpaque): boolean {
    return other instanceof CIDR && this.bits === other.bits && addrEqual(this.addr, other.addr);
  }
  /** Upstream's CIDR.Size: bytes covered by the prefix length, used by runtime costs. */
  celSize(): number {
    return Math.ceil(this.bits / 8);
  }
  toString(): string {
    return `${formatAddr(this.addr)}/${this.bits}`;
  }
  masked(): CIDR {
    return new CIDR(maskAddr(this.addr, this.bits), this.bits);
  }
  /** netip.Prefix.Contains. */
  containsIP(ip: IP): boolean {
    if (ip.addr.zone !== "" || ip.addr.bytes.length !== this.addr.bytes.length) return false;
    return addrEqual(maskAddr(ip.addr, this.bits), maskAddr(this.addr, this.bits));
  }
  /** As upstream since 1.33 (kubernetes#130450): same network at this prefix length, and no shorter prefix. */
  containsCIDR(other: CIDR): boolean {
    const maxBits = other.addr.bytes.length * 8;
    if (this.bits > maxBits) return false; // PrefixFrom(other, bits) is invalid
    return addrEqual(maskAddr(this.addr, this.bits), maskAddr(other.addr, this.bits)) && this.bits <= other.bits;
  }
}

const PREFIX = "network address parse error during conversion from string: ";

/** Upstream's parseCIDR (errors already carry one PREFIX); throws Error. */
function parseCIDRInner(raw: string): CIDR {
  let c: CIDR;
  try {
    const p = parsePrefix(raw);
    c = new CIDR(p.addr, p.bits);
  } catch (e) {
    throw new Error(PREFIX + (e as Error).message);
  }
  if (is4In6(c.addr)) throw new Error(`IPv4-mapped IPv6 address ${goQuote(raw)} is not allowed`);
  return c;
}

/** cidr(string): upstream prefixes its error once more. Throws CelEvalError. */
export function parseCIDR(raw: string): CIDR {
  try {
    return parseCIDRInner(raw);
  } catch (e) {
    return celError(PREFIX + (e as Error).message);
  }
}

const asCIDR = (v: CelValue): CIDR => v as unknown as CIDR;

const IP_BYTES = { min: 4, max: 16 };

/** containsIP / containsCIDR costs (upstream cost.go). */
function containsCost(kind: "ip" | "cidr", stringArg: boolean): OverloadCost {
  return {
    estimate: (args: readonly ArgEstimate[]): CallEstimate => {
      let cost = multiplyByCostFactor(addEstimates(IP_BYTES, IP_BYTES), stringTraversalCostFactor);
      if (kind === "cidr") {
        cost = addEstimates(cost, multiplyByCostFactor(IP_BYTES, stringTraversalCostFactor));
        cost = addEstimates(cost, { min: 1, max: 1 });
      }
      if (stringArg) cost = addEstimates(cost, multiplyByCostFactor(args[1]?.size ?? { min: 0, max: MAX_ESTIMATE }, stringTraversalCostFactor));
      return { cost };
    },
    actual: (args: readonly CelValue[]): number => {
      const cidrSize = actualSize(args[0]!);
      const otherSize = actualSize(args[1]!);
      let cost = Math.ceil((cidrSize + cidrSize) * stringTraversalCostFactor);
      if (kind === "cidr") cost += Math.ceil(cidrSize * stringTraversalCostFactor) + 1;
      if (stringArg) cost += Math.ceil(otherSize * stringTraversalCostFactor);
      return cost;
    },
  };
}

export const cidrLibrary: CelLibrary = {
  name: "net.cidr",
  functions: [
    { name: "cidr", overloads: [overload("string_to_cidr", [StringType], CIDRType, ([s]) => parseCIDR(s as string), { cost: stringParseCost(0) })] },
    {
      name: "containsIP",
      overloads: [
        memberOverload("cidr_contains_ip_string", [CIDRType, StringType], BoolType, ([c, s]) => asCIDR(c!).containsIP(parseIP(s as string)), {
          cost: containsCost("ip", true),
        }),
        memberOverload("cidr_contains_ip_ip", [CIDRType, IPType], BoolType, ([c, ip]) => asCIDR(c!).containsIP(ip as unknown as IP), {
          cost: containsCost("ip", false),
        }),
      ],
    },
    {
      name: "containsCIDR",
      overloads: [
        memberOverload("cidr_contains_cidr_string", [CIDRType, StringType], BoolType, ([c, s]) => asCIDR(c!).containsCIDR(parseCIDR(s as string)), {
          cost: containsCost("cidr", true),
        }),
        memberOverload("cidr_contains_cidr", [CIDRType, CIDRType], BoolType, ([c, o]) => asCIDR(c!).containsCIDR(asCIDR(o!)), {
          cost: containsCost("cidr", false),
        }),
      ],
    },
    { name: "ip", overloads: [memberOverload("cidr_ip", [CIDRType], IPType, ([c]) => new IP(asCIDR(c!).addr), { cost: nominalCost })] },
    { name: "prefixLength", overloads: [memberOverload("cidr_prefix_length", [CIDRType], IntType, ([c]) => BigInt(asCIDR(c!).bits), { cost: nominalCost })] },
    { name: "masked", overloads: [memberOverload("cidr_masked", [CIDRType], CIDRType, ([c]) => asCIDR(c!).masked(), { cost: nominalCost })] },
    {
      name: "isCIDR",
      overloads: [
        overload(
          "is_cidr",
          [StringType],
          BoolType,
          ([s]) => {
            try {
              parseCIDRInner(s as string);
              return true;
            } catch {
              return false;
            }
          },
          { cost: stringParseCost(0) },
        ),
      ],
    },
    { name: "string", overloads: [overload("cidr_to_string", [CIDRType], StringType, ([c]) => asCIDR(c!).toString())] },
  ],
  // upstream declares a variable `net.CIDR` of type type(net.CIDR)
  constants: [{ name: "net.CIDR", type: typeOf(CIDRType), value: new CelTypeValue(CIDRType) }],
};
