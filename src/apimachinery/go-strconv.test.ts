import { describe, expect, it } from "vitest";
import { parseGoInt } from "./go-strconv.js";

describe("parseGoInt (strconv.ParseInt, base 10)", () => {
  it("takes a sign and decimal digits within the bit size", () => {
    expect(parseGoInt("42")).toEqual({ ok: true, value: 42n });
    expect(parseGoInt("+7")).toEqual({ ok: true, value: 7n });
    expect(parseGoInt("-9223372036854775808")).toEqual({ ok: true, value: -(2n ** 63n) });
    expect(parseGoInt("2147483647", 32)).toEqual({ ok: true, value: 2147483647n });
  });

  it("refuses everything else in Go's words", () => {
    expect(parseGoInt("abc")).toEqual({ ok: false, error: 'strconv.ParseInt: parsing "abc": invalid syntax' });
    expect(parseGoInt("")).toEqual({ ok: false, error: 'strconv.ParseInt: parsing "": invalid syntax' });
    for (const bad of [" 1", "1.0", "1e3", "0x10", "1_000", "--1"]) expect(parseGoInt(bad).ok, bad).toBe(false);
    expect(parseGoInt("9223372036854775808")).toEqual({ ok: false, error: 'strconv.ParseInt: parsing "9223372036854775808": value out of range' });
    expect(parseGoInt("2147483648", 32)).toEqual({ ok: false, error: 'strconv.ParseInt: parsing "2147483648": value out of range' });
  });
});
