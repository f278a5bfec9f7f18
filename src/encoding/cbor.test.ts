import { describe, expect, it } from "vitest";
import { decodeCbor, encodeCbor } from "./cbor.js";

const hex = (b: Buffer) => b.toString("hex");
const body = (v: unknown) => hex(encodeCbor(v)).replace(/^d9d9f7/, "");

describe("CBOR encoding as kube-apiserver's", () => {
  it("starts every document with the self-described tag", () => {
    expect(hex(encodeCbor(null)).slice(0, 6)).toBe("d9d9f7");
  });

  it("writes integers in their shortest form and floats in the shortest width that keeps them (RFC 8949 appendix A)", () => {
    expect(body(0)).toBe("00");
    expect(body(23)).toBe("17");
    expect(body(24)).toBe("1818");
    expect(body(1000)).toBe("1903e8");
    expect(body(1000000)).toBe("1a000f4240");
    expect(body(-1)).toBe("20");
    expect(body(-1000)).toBe("3903e7");
    expect(body(1.5)).toBe("f93e00");
    expect(body(-4.1)).toBe("fbc010666666666666");
    expect(body(1.1)).toBe("fb3ff199999999999a");
    expect(body(100000.5)).toBe("fa47c35040");
    expect(body(5.960464477539063e-8)).toBe("f90001");
    expect(body(0.00006103515625)).toBe("f90400");
    expect(() => encodeCbor(Number.NaN)).toThrow();
    expect(() => encodeCbor(Number.POSITIVE_INFINITY)).toThrow();
  });

  it("writes strings and map keys as byte strings, keys sorted bytewise (shorter first)", () => {
    expect(body("a")).toBe("4161");
    expect(body({ kind: "X", apiVersion: "v1", data: { b: true, a: null } })).toBe(
      "a3" + "4464617461" + "a2" + "4161" + "f6" + "4162" + "f5" + "446b696e64" + "4158" + "4a61706956657273696f6e" + "427631",
    );
    expect(body([1, [2, 3]])).toBe("8201820203");
  });

  it("decodes text or byte strings, tags it knows, and refuses duplicates, indefinite lengths and trailing bytes", () => {
    expect(decodeCbor(Buffer.from("d9d9f7a2616101624142f5", "hex"))).toEqual({ a: 1, AB: true });
    expect(decodeCbor(Buffer.from("a24161014162f4", "hex"))).toEqual({ a: 1, b: false });
    expect(decodeCbor(Buffer.from("f93c00", "hex"))).toBe(1);
    expect(decodeCbor(Buffer.from("fb3ff199999999999a", "hex"))).toBe(1.1);
    expect(() => decodeCbor(Buffer.from("a2416101416102", "hex"))).toThrow('cbor: found duplicate map key "a"');
    expect(() => decodeCbor(Buffer.from("9f01ff", "hex"))).toThrow("indefinite-length");
    expect(() => decodeCbor(Buffer.from("0101", "hex"))).toThrow("extraneous data");
    expect(() => decodeCbor(Buffer.from("c11a514b67b0", "hex"))).toThrow("unsupported tag 1");
    expect(() => decodeCbor(Buffer.from("62c328", "hex"))).toThrow("invalid UTF-8");
  });

  it("round-trips what JSON carries", () => {
    const v = { apiVersion: "stable.example.com/v1", kind: "CronTab", metadata: { name: "x", labels: { "a.b/c": "d" } }, spec: { n: -5, f: 0.25, list: [true, null, "s"], nested: { deep: [{}] } } };
    expect(decodeCbor(encodeCbor(v))).toEqual(v);
  });
});
