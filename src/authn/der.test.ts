import { describe, expect, it } from "vitest";
import * as der from "./der.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("DER encoding (X.690)", () => {
  it("writes short and long definite lengths", () => {
    expect(hex(der.octetString(Buffer.alloc(3)))).toBe("0403000000");
    expect(hex(der.octetString(Buffer.alloc(200))).slice(0, 6)).toBe("0481c8");
    expect(hex(der.octetString(Buffer.alloc(300))).slice(0, 8)).toBe("0482012c");
  });

  it("writes integers minimally and positive", () => {
    expect(hex(der.smallInteger(2))).toBe("020102");
    expect(hex(der.smallInteger(0))).toBe("020100");
    expect(hex(der.unsignedInteger(Buffer.from([0x00, 0x00, 0x80])))).toBe("02020080");
    expect(hex(der.unsignedInteger(Buffer.from([0x7f, 0x01])))).toBe("02027f01");
  });

  it("writes object identifiers in base 128", () => {
    expect(hex(der.objectIdentifier("1.2.840.10045.4.3.2"))).toBe("06082a8648ce3d040302");
    expect(hex(der.objectIdentifier("2.5.29.17"))).toBe("0603551d11");
  });

  it("writes named bits without trailing zero bits", () => {
    // digitalSignature, keyCertSign, cRLSign: 1000 0110, one unused bit
    expect(hex(der.namedBits([0, 5, 6]))).toBe("03020186");
    // digitalSignature, keyEncipherment: 1010 0000, five unused bits
    expect(hex(der.namedBits([0, 2]))).toBe("030205a0");
    expect(hex(der.namedBits([8]))).toBe("0303070080"); // bit 8 opens the second byte
  });

  it("writes UTCTime before 2050 and GeneralizedTime from 2050", () => {
    expect(Buffer.from(der.time(new Date("2036-01-02T03:04:05.678Z")).subarray(2)).toString()).toBe("360102030405Z");
    expect(der.time(new Date("2036-01-02T03:04:05Z"))[0]).toBe(0x17);
    const late = der.time(new Date("2051-01-02T03:04:05Z"));
    expect([late[0], late.subarray(2).toString()]).toEqual([0x18, "20510102030405Z"]);
  });

  it("reads back what it writes, and refuses a truncated element", () => {
    const s = der.sequence(der.smallInteger(5), der.octetString(Buffer.alloc(300, 7)));
    const [outer] = der.readElements(s);
    const inner = der.readElements(outer!.contents);
    expect(inner.map((e) => e.tag)).toEqual([0x02, 0x04]);
    expect(inner[1]!.contents.length).toBe(300);
    expect(() => der.readElements(s.subarray(0, s.length - 1))).toThrow(/truncated/);
    expect(() => der.readElements(Buffer.from([0x30, 0x80]))).toThrow(/length/);
  });
});
