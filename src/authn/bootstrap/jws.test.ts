import { describe, expect, it } from "vitest";
import { computeDetachedSignature, detachedTokenIsValid } from "./jws.js";

describe("bootstrap signer's detached JWS", () => {
  it("matches a vector computed by hand (openssl) from the spec's recipe", () => {
    // header = base64url('{"alg":"HS256","kid":"abcdef"}'); payload = base64url(content), no '=';
    // signature = base64url(HMAC-SHA256(token secret, header + "." + payload)).
    const content = "apiVersion: v1\nkind: Config\n";
    expect(computeDetachedSignature(content, "abcdef", "0123456789abcdef")).toBe(
      "eyJhbGciOiJIUzI1NiIsImtpZCI6ImFiY2RlZiJ9..vH_kT4yiol-nrAWgjfCYqvum5wsKETXe0S7OOp1VgnE",
    );
  });

  it("matches upstream's published vectors (go-jose, key zero-padded to 32 bytes)", () => {
    const content = "Hello from the other side. I must have called a thousand times.";
    expect(computeDetachedSignature(content, "joshua", "my voice is my passcode")).toBe("eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..VShe2taLd-YTrmWuRkcL_8QTNDHYxQIEBsAYYiIj1_8");
    expect(computeDetachedSignature("", "joshua", "my voice is my passcode")).toBe("eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..7Ui1ALizW4jXphVUB7xUqC9vLYLL9RZeOFfVLoB7Tgk");
    expect(computeDetachedSignature(content, "joshua", "")).toBe("eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..UfkqvDGiIFxrMnFseDj9LYJOLNrvjW8aHhF71mvvAs8");
  });

  it("is detached: header, empty payload, signature; no base64 padding", () => {
    const sig = computeDetachedSignature("x".repeat(31), "abcdef", "0123456789abcdef");
    const [h, p, s] = sig.split(".");
    expect(p).toBe("");
    expect(JSON.parse(Buffer.from(h, "base64url").toString())).toEqual({ alg: "HS256", kid: "abcdef" });
    expect(sig).not.toContain("=");
    expect(s).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("verifies its own signatures and nothing else", () => {
    const sig = computeDetachedSignature("content", "abcdef", "0123456789abcdef");
    expect(detachedTokenIsValid(sig, "content", "abcdef", "0123456789abcdef")).toBe(true);
    expect(detachedTokenIsValid(sig + "foo", "content", "abcdef", "0123456789abcdef")).toBe(false);
    expect(detachedTokenIsValid(sig, "content!", "abcdef", "0123456789abcdef")).toBe(false);
    expect(detachedTokenIsValid(sig, "content", "abcdef", "0123456789abcdeg")).toBe(false);
    expect(detachedTokenIsValid(sig, "content", "abcdeg", "0123456789abcdef")).toBe(false);
  });
});
