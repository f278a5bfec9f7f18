import { describe, expect, it } from "vitest";
import { goBase64Error, goRawUrlBase64Decode } from "./go-base64.js";

describe("goBase64Error (base64.StdEncoding.Decode)", () => {
  it("takes padded standard base64, line breaks skipped, and the empty string", () => {
    for (const ok of ["", "aGVsbG8=", "aGVsbA==", "aGVs", "aGVs\nbG8=", "aGVsbA=\r\n=", "aGVs\n"]) expect(goBase64Error(ok), JSON.stringify(ok)).toBeUndefined();
  });

  it("names the byte where the decoder stopped", () => {
    const at = (n: number) => `illegal base64 data at input byte ${n}`;
    expect(goBase64Error("not base64!")).toBe(at(3));
    expect(goBase64Error("aGVsbG8")).toBe(at(4)); // unpadded: the last quantum is short
    expect(goBase64Error("a")).toBe(at(0));
    expect(goBase64Error("aGVsbG8==")).toBe(at(8)); // trailing garbage
    expect(goBase64Error("ab==x")).toBe(at(4));
    expect(goBase64Error("a===")).toBe(at(1)); // padding too early
    expect(goBase64Error("ab=")).toBe(at(3)); // "==" wanted
    expect(goBase64Error("ab=c")).toBe(at(2));
    expect(goBase64Error("aGVsbG8_")).toBe(at(7)); // URL alphabet
    expect(goBase64Error("é===")).toBe(at(0)); // offsets count UTF-8 bytes
    expect(goBase64Error("ab\né")).toBe(at(3));
  });
});

describe("goRawUrlBase64Decode (base64.RawURLEncoding.DecodeString)", () => {
  const bytes = (t: string) => {
    const r = goRawUrlBase64Decode(t);
    return "bytes" in r ? r.bytes.toString("utf8") : r.error;
  };
  it("decodes the URL alphabet without padding, line breaks skipped, a last quantum of two or three symbols", () => {
    expect(bytes("aGVsbG8")).toBe("hello");
    expect(bytes("aGVs\r\nbG8\n")).toBe("hello");
    expect(bytes("")).toBe("");
    expect(bytes("_-8")).toBe(Buffer.from([0xff, 0xef]).toString("utf8"));
  });
  it("refuses the standard alphabet, padding and a lone last symbol, naming the byte", () => {
    const at = (n: number) => `illegal base64 data at input byte ${n}`;
    expect(bytes("aGVsbG8=")).toBe(at(7));
    expect(bytes("a+b")).toBe(at(1));
    expect(bytes("abcde")).toBe(at(4));
    expect(bytes("abcde\r\n")).toBe(at(6)); // where the input ended, as Go reports it
    expect(bytes("ééé")).toBe(at(0));
  });
});
