// The warnings of an IP address that validation took only because it parses addresses loosely
// (upstream: apimachinery's validation.GetWarningsForIP, 1.34): one that netip refuses (IPv4 with
// leading zeros) or an IPv4-mapped IPv6 address will be refused one day; an IPv6 address not in
// RFC 5952 form is asked to be written in it.
import { goQuote } from "./go-quote.js";
import { formatAddr, is4In6, parseIPv4, parseIPv4Sloppy, parseIPv6, type Addr } from "./ip-address.js";

/** Go's net.IP.String: an IPv4 or IPv4-mapped address in dotted decimal, else RFC 5952. */
function netIPString(a: Addr): string {
  const b = a.bytes;
  if (b.length === 4 || is4In6(a)) return [...b.subarray(b.length - 4)].join(".");
  return formatAddr(a);
}

/** The warnings of an address validation already took (none for one it would not parse). */
export function ipWarnings(field: string, value: string): string[] {
  const loose = parseIPv4Sloppy(value) ?? parseIPv6(value);
  if (!loose) return [];
  const strict = parseIPv4(value) ?? parseIPv6(value);
  if (!strict || is4In6(strict)) return [`${field}: non-standard IP address ${goQuote(value)} will be considered invalid in a future Kubernetes release: use ${goQuote(netIPString(loose))}`];
  if (strict.bytes.length === 16 && formatAddr(strict) !== value) return [`${field}: IPv6 address ${goQuote(value)} should be in RFC 5952 canonical format (${goQuote(formatAddr(strict))})`];
  return [];
}
