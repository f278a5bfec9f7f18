import { describe, expect, it } from "vitest";
import type { CelValue } from "../value.js";
import { callOverload, findOverload } from "./overloads.testkit.js";
import { IP, ipLibrary, parseIP } from "./ip.js";

const call = (id: string, ...args: CelValue[]) => callOverload(ipLibrary, id, ...args);
const ip = (s: string) => parseIP(s);

describe("kubernetes.net.ip", () => {
  it.each([
    ["192.168.0.1.0", 'IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long'],
    ["2001:db8:::68", 'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")'],
    ["127.0.0.256", 'IP Address "127.0.0.256" parse error during conversion from string: ParseAddr("127.0.0.256"): IPv4 field has value >255'],
    ["01.2.3.4", 'IP Address "01.2.3.4" parse error during conversion from string: ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero'],
    ["1.2.3", 'IP Address "1.2.3" parse error during conversion from string: ParseAddr("1.2.3"): IPv4 address too short'],
    ["foo", 'IP Address "foo" parse error during conversion from string: ParseAddr("foo"): unable to parse IP'],
    ["fe80::1%eth0", 'IP address "fe80::1%eth0" with zone value is not allowed'],
    ["::ffff:1.2.3.4", 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'],
  ])("ip(%j) fails", (s, message) => {
    expect(() => call("string_to_ip", s)).toThrow(message);
    expect(call("is_ip", s)).toBe(false);
  });

  it.each([
    ["192.168.0.1", "192.168.0.1", 4n],
    ["2001:db8::68", "2001:db8::68", 6n],
    ["2001:DB8:0:0:0:0:0:68", "2001:db8::68", 6n],
    ["::", "::", 6n],
    ["1:0:0:2:0:0:0:3", "1:0:0:2::3", 6n],
    ["1:0:2:3:4:5:6:7", "1:0:2:3:4:5:6:7", 6n],
    ["::1.2.3.4", "::102:304", 6n],
  ])("ip(%j) prints %j, family %s", (s, printed, family) => {
    expect(call("ip_to_string", ip(s))).toBe(printed);
    expect(call("ip_family", ip(s))).toBe(family);
    expect(call("is_ip", s)).toBe(true);
  });

  it("ip.isCanonical", () => {
    expect(call("ip_is_canonical", "127.0.0.1")).toBe(true);
    expect(call("ip_is_canonical", "2001:db8::68")).toBe(true);
    expect(call("ip_is_canonical", "2001:DB8::68")).toBe(false);
    expect(call("ip_is_canonical", "2001:db8::0:0:0:abcd")).toBe(false);
    expect(() => call("ip_is_canonical", "127.0.0.1.0")).toThrow('ParseAddr("127.0.0.1.0"): IPv4 address too long');
  });

  it.each([
    ["ip_is_unspecified", "0.0.0.0", true],
    ["ip_is_unspecified", "::1", false],
    ["ip_is_loopback", "127.0.0.1", true],
    ["ip_is_loopback", "::1", true],
    ["ip_is_loopback", "1.2.3.4", false],
    ["ip_is_link_local_multicast", "224.0.0.1", true],
    ["ip_is_link_local_multicast", "224.0.1.1", false],
    ["ip_is_link_local_multicast", "ff02::1", true],
    ["ip_is_link_local_multicast", "fd00::1", false],
    ["ip_is_link_local_unicast", "169.254.169.254", true],
    ["ip_is_link_local_unicast", "fe80::1", true],
    ["ip_is_link_local_unicast", "fd80::1", false],
    ["ip_is_global_unicast", "192.168.0.1", true],
    ["ip_is_global_unicast", "255.255.255.255", false],
    ["ip_is_global_unicast", "2001:db8::abcd", true],
    ["ip_is_global_unicast", "ff00::1", false],
  ])("%s(%s) = %s", (id, s, want) => {
    expect(call(id, ip(s))).toBe(want);
  });

  it("equality, type constant and costs", () => {
    expect(ip("::1").equals(ip("0::1"))).toBe(true);
    expect(ip("1.2.3.4").equals(ip("1.2.3.5"))).toBe(false);
    expect(ipLibrary.constants?.[0]?.name).toBe("net.IP");
    expect(findOverload(ipLibrary, "string_to_ip").cost!.actual!(["2001:db8::68"], null)).toBe(2);
    expect(findOverload(ipLibrary, "ip_is_canonical").cost!.actual!(["2001:db8::68"], null)).toBe(3);
    expect(new IP(ip("::1").addr).celSize()).toBe(16);
  });
});
