// Service IP and node-port ranges (upstream --service-cluster-ip-range, --service-node-port-range)
// and the deterministic scan that picks a free value in them.
import { ipv4Number, ipv4OfNumber, parseIPv4 } from "../../apimachinery/ip-address.js";
import { goQuote } from "../../apimachinery/go-quote.js";

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = "10.0.0.0/24";
export const DEFAULT_SERVICE_NODE_PORT_RANGE = "30000-32767";

export interface IPRange {
  cidr: string;
  /** First address of the network (as a number, IPv4). */
  base: number;
  /** Number of addresses in the CIDR. */
  total: number;
  /** Usable offsets are [1, total-2] for IPv4 (network and broadcast excluded). */
  first: number;
  last: number;
}

export function parseIPv4Range(cidr: string): IPRange {
  const [ip, bitsText] = cidr.split("/");
  const bits = Number(bitsText);
  const addr = ip ? parseIPv4(ip) : undefined;
  if (!addr || !Number.isInteger(bits) || bits < 1 || bits > 30) throw new Error(`invalid IPv4 service CIDR ${goQuote(cidr)}`);
  const total = 2 ** (32 - bits);
  const base = Math.floor(ipv4Number(addr) / total) * total;
  return { cidr: `${ipv4OfNumber(base)}/${bits}`, base, total, first: 1, last: total - 2 };
}

export function ipInRange(r: IPRange, ip: string): boolean {
  const addr = parseIPv4(ip);
  if (!addr) return false;
  const off = ipv4Number(addr) - r.base;
  return off >= r.first && off <= r.last;
}

/** The first usable address: upstream gives it to the `kubernetes` Service in `default`. */
export function firstServiceIP(r: IPRange): string {
  return ipv4OfNumber(r.base + r.first);
}

export interface PortRange {
  base: number;
  size: number;
  text: string;
}

export function parsePortRange(text: string): PortRange {
  const m = /^(\d+)(?:-(\d+))?$/.exec(text.trim());
  if (!m) throw new Error(`invalid port range ${goQuote(text)}`);
  const lo = Number(m[1]);
  const hi = m[2] === undefined ? lo : Number(m[2]);
  if (hi < lo || lo < 1 || hi > 65535) throw new Error(`invalid port range ${goQuote(text)}`);
  return { base: lo, size: hi - lo + 1, text: `${lo}-${hi}` };
}

export const portInRange = (r: PortRange, p: number): boolean => p >= r.base && p < r.base + r.size;

/** FNV-1a: a stable starting point per object so allocation does not depend on arrival order alone. */
export function stableHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * Upstream splits a range into a lower band kept for static (user-chosen) values and an upper
 * band that dynamic allocation prefers: offset = clamp(size/step, 16, max).
 */
function dynamicBandStart(size: number, step: number, max: number): number {
  return Math.min(Math.max(16, Math.floor(size / step)), max);
}

/** A free offset in [0, size): upper band first, from a hashed start, then the lower band. */
export function pickFree(size: number, used: (offset: number) => boolean, seed: string, step: number, max: number): number | undefined {
  const band = size > 16 ? dynamicBandStart(size, step, max) : 0;
  const scan = (lo: number, hi: number): number | undefined => {
    const n = hi - lo;
    if (n <= 0) return undefined;
    const start = stableHash(seed) % n;
    for (let i = 0; i < n; i++) {
      const off = lo + ((start + i) % n);
      if (!used(off)) return off;
    }
    return undefined;
  };
  return scan(band, size) ?? scan(0, band);
}
