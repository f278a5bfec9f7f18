import { describe, expect, it } from "vitest";
import type { CelValue } from "../value.js";
import { callOverload, findOverload } from "./overloads.testkit.js";
import { cidrLibrary, parseCIDR } from "./cidr.js";
import { parseIP } from "./ip.js";

const call = (id: string, ...args: CelValue[]) => callOverload(cidrLibrary, id, ...args);
const cidr = (s: string) => parseCIDR(s);

describe("net.cidr", () => {
  it.each([
    ["192.168.0.0/", 'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""'],
    ["2001:db8::/", 'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""'],
    ["10.0.0.0/33", 'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0/33"): prefix length out of range'],
    ["10.0.0.0", `network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0"): no '/'`],
    ["10.0.0/8", 'netip.ParsePrefix("10.0.0/8"): ParseAddr("10.0.0"): IPv4 address too short'],
    ["::ffff:1.2.3.4/120", 'network address parse error during conversion from string: IPv4-mapped IPv6 address "::ffff:1.2.3.4/120" is not allowed'],
  ])("cidr(%j) fails", (s, message) => {
    expect(() => call("string_to_cidr", s)).toThrow(message);
    expect(call("is_cidr", s)).toBe(false);
  });

  it("parses, prints, masks", () => {
    expect(call("cidr_to_string", cidr("192.168.0.1/24"))).toBe("192.168.0.1/24");
    expect(call("cidr_to_string", call("cidr_masked", cidr("192.168.0.1/24")))).toBe("192.168.0.0/24");
    expect(call("cidr_to_string", call("cidr_masked", cidr("2001:db8:1::/32")))).toBe("2001:db8::/32");
    expect(cidr("192.168.0.0/24").equals(call("cidr_masked", cidr("192.168.0.0/24")) as never)).toBe(true);
    expect(cidr("192.168.0.1/24").equals(call("cidr_masked", cidr("192.168.0.1/24")) as never)).toBe(false);
    expect(call("cidr_prefix_length", cidr("::1/128"))).toBe(128n);
    expect(parseIP("192.168.0.1").equals(call("cidr_ip", cidr("192.168.0.1/24")) as never)).toBe(true);
    expect(call("is_cidr", "10.0.0.1/8")).toBe(true);
  });

  it.each([
    ["cidr_contains_ip_string", "192.168.0.0/24", "192.168.0.1", true],
    ["cidr_contains_ip_string", "192.168.0.0/24", "192.168.1.1", false],
    ["cidr_contains_ip_string", "2001:db8::/32", "2001:db8::1", true],
    ["cidr_contains_ip_string", "2001:db8::/32", "2001:dc8::1", false],
    ["cidr_contains_ip_string", "0.0.0.0/0", "::1", false],
    ["cidr_contains_cidr_string", "192.168.0.0/24", "192.168.0.0/25", true],
    ["cidr_contains_cidr_string", "192.168.0.0/24", "192.168.0.0/23", false],
    ["cidr_contains_cidr_string", "192.168.0.0/16", "192.168.0.1/32", true], // fixed upstream in 1.33
    ["cidr_contains_cidr_string", "2001:db8::/32", "2001:db8::/33", true],
    ["cidr_contains_cidr_string", "::/64", "10.0.0.0/32", false],
  ])("%s(%s, %s) = %s", (id, c, other, want) => {
    expect(call(id, cidr(c), other)).toBe(want);
  });

  it("object overloads and bad string arguments", () => {
    expect(call("cidr_contains_ip_ip", cidr("192.168.0.0/24"), parseIP("192.168.0.1"))).toBe(true);
    expect(call("cidr_contains_cidr", cidr("2001:db8::/32"), cidr("2001:db8::/31"))).toBe(false);
    expect(() => call("cidr_contains_ip_string", cidr("10.0.0.0/8"), "x")).toThrow('IP Address "x" parse error');
  });

  it("costs as upstream", () => {
    const c = findOverload(cidrLibrary, "cidr_contains_cidr_string").cost!;
    // cidr /24 → size 3: ceil(6*0.1)=1, +ceil(0.3)+1=2, +ceil(14*0.1)=2 → 5
    expect(c.actual!([cidr("192.168.0.0/24"), "192.168.0.0/25"], true)).toBe(5);
    expect(c.estimate!([{ type: { kind: "dyn" }, size: { min: 1, max: 1 } }, { type: { kind: "string" }, size: { min: 0, max: 20 } }]).cost).toEqual({ min: 3, max: 9 });
    const ipc = findOverload(cidrLibrary, "cidr_contains_ip_ip").cost!;
    expect(ipc.estimate!([]).cost).toEqual({ min: 1, max: 4 });
    expect(ipc.actual!([cidr("::/128"), parseIP("::1")], true)).toBe(4);
  });
});
