import { describe, expect, it } from "vitest";
import { formatAddr, isGlobalUnicast, ipv4Number, ipv4OfNumber, maskAddr, parseAddr, parseIPv4, parseIPv4Sloppy, parseIPv6, parsePrefix } from "./ip-address.js";

describe("IP addresses as Go's net/netip reads them", () => {
  it("parses and prints IPv4 and IPv6 (RFC 5952) with Go's error texts", () => {
    expect(formatAddr(parseAddr("10.0.0.1"))).toBe("10.0.0.1");
    expect(formatAddr(parseAddr("2001:DB8:0:0:0:0:0:1"))).toBe("2001:db8::1");
    expect(() => parseAddr("01.2.3.4")).toThrow('ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero');
    expect(() => parseAddr("127.1")).toThrow('ParseAddr("127.1"): IPv4 address too short');
  });
  it("reads prefixes, keeping host bits until masked", () => {
    const p = parsePrefix("10.1.2.3/8");
    expect(formatAddr(p.addr)).toBe("10.1.2.3");
    expect(formatAddr(maskAddr(p.addr, p.bits))).toBe("10.0.0.0");
    expect(() => parsePrefix("10.0.0.0/33")).toThrow('netip.ParsePrefix("10.0.0.0/33"): prefix length out of range');
  });
  it("tells the families apart, sloppy IPv4 for the CRD formats", () => {
    expect(parseIPv4("::1")).toBeUndefined();
    expect(parseIPv6("1.2.3.4")).toBeUndefined();
    expect(parseIPv6("fe80::1%eth0")?.zone).toBe("eth0");
    expect(parseIPv6("fe80::1%a%b")).toBeUndefined();
    expect(parseIPv4("010.0.0.1")).toBeUndefined();
    expect(formatAddr(parseIPv4Sloppy("010.0.0.001")!)).toBe("10.0.0.1");
    expect(parseIPv4Sloppy("0010.0.0.1")).toBeUndefined();
  });
  it("numbers IPv4 addresses for ranges", () => {
    expect(ipv4Number(parseIPv4("255.255.255.254")!)).toBe(2 ** 32 - 2);
    expect(ipv4OfNumber(2 ** 32 - 2)).toBe("255.255.255.254");
  });
});

describe("isGlobalUnicast (Go's IP.IsGlobalUnicast)", () => {
  it("refuses loopback, link-local, unspecified, multicast and broadcast addresses", () => {
    for (const ip of ["10.0.0.1", "192.168.1.2", "8.8.8.8", "2001:db8::1", "::ffff:10.1.2.3"]) expect(isGlobalUnicast(parseAddr(ip)), ip).toBe(true);
    for (const ip of ["127.0.0.1", "127.9.9.9", "169.254.169.254", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "ff02::1", "::ffff:127.0.0.1"]) {
      expect(isGlobalUnicast(parseAddr(ip)), ip).toBe(false);
    }
  });
});
