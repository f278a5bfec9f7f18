import { describe, expect, it } from "vitest";
import { compareKeys, prefixEnd } from "./keys.js";

const utf8Order = (a: string, b: string) => Math.sign(Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8")));

describe("compareKeys", () => {
  it("orders keys as their UTF-8 bytes, also where UTF-16 order differs (a surrogate against U+E000–FFFF)", () => {
    const keys = ["/registry/pods/a", "/registry/pods/b", "/registry/pods/a/b", "/registry/pods/", "/registry/p\u00e9", "/registry/\ue000", "/registry/\ud83d\ude00", "/registry/\uffff", "/registry/\u07ff", "/registry/pods/\ud83d\ude00x", "/registry/pods/\uefffz", ""];
    for (const a of keys) for (const b of keys) expect([a, b, Math.sign(compareKeys(a, b))]).toEqual([a, b, utf8Order(a, b)]);
  });

  it("agrees with UTF-8 order on random strings over the whole range", () => {
    const alphabet = ["a", "z", "/", "\u00ff", "\u07ff", "\ud7ff", "\ue000", "\uffff", "\ud800\udc00", "\udbff\udfff"];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % alphabet.length;
    const word = () => Array.from({ length: 1 + (next() % 5) }, () => alphabet[next()]).join("");
    for (let i = 0; i < 2000; i++) {
      const a = word();
      const b = word();
      expect(Math.sign(compareKeys(a, b))).toBe(utf8Order(a, b));
    }
  });
});

describe("prefixEnd", () => {
  it("is above every key with the prefix", () => {
    expect(prefixEnd("/registry/pods/")).toBe("/registry/pods0");
    expect(prefixEnd("")).toBeUndefined();
    expect(compareKeys("/registry/pods/\udbff\udfff", prefixEnd("/registry/pods/")!)).toBeLessThan(0);
  });
});
