import { constants, generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MalformedJwsError, algorithmFor, keyIdOf, looksLikeJwt, parseJws, signJws, verifyJws } from "./jws.js";
import { privateKeyFromPem, publicKeysFromPem } from "./keys.js";

const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec256 = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
const ec384 = generateKeyPairSync("ec", { namedCurve: "secp384r1" });

describe("JWS", () => {
  it("signs and verifies with RSA (RS256) and EC keys (ES256, ES384)", async () => {
    for (const [pair, alg] of [[rsa, "RS256"], [ec256, "ES256"], [ec384, "ES384"]] as const) {
      const token = signJws({ sub: "x" }, pair.privateKey, { kid: "k" });
      const jws = parseJws(token);
      expect(jws.alg).toBe(alg);
      expect(algorithmFor(pair.privateKey)).toBe(alg);
      expect(jws.kid).toBe("k");
      expect(jws.payload).toEqual({ sub: "x" });
      expect(await verifyJws(jws, pair.publicKey)).toBe(true);
    }
  });

  it("refuses a tampered payload, alg none, and a key of the wrong kind", async () => {
    const token = signJws({ sub: "x" }, rsa.privateKey);
    const [h, , s] = token.split(".");
    const tampered = parseJws(`${h}.${Buffer.from('{"sub":"y"}').toString("base64url")}.${s}`);
    expect(await verifyJws(tampered, rsa.publicKey)).toBe(false);
    const none = parseJws(`${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from('{"sub":"x"}').toString("base64url")}.`);
    expect(await verifyJws(none, rsa.publicKey)).toBe(false);
    expect(await verifyJws(parseJws(token), ec256.publicKey)).toBe(false);
    // ES256 header with a P-384 key: the curve must match the algorithm.
    expect(await verifyJws(parseJws(signJws({}, ec256.privateKey)), ec384.publicKey)).toBe(false);
    // PS256 over an RSA key verifies; an HMAC algorithm does not, whatever the key.
    const ps = `${Buffer.from('{"alg":"PS256"}').toString("base64url")}.${Buffer.from('{"sub":"x"}').toString("base64url")}`;
    const psSig = sign("sha256", Buffer.from(ps), { key: rsa.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
    expect(await verifyJws(parseJws(`${ps}.${psSig.toString("base64url")}`), rsa.publicKey)).toBe(true);
    const hs = `${Buffer.from('{"alg":"HS256"}').toString("base64url")}.${Buffer.from('{"sub":"x"}').toString("base64url")}`;
    expect(await verifyJws(parseJws(`${hs}.${Buffer.from("x").toString("base64url")}`), rsa.publicKey)).toBe(false);
  });

  it("refuses malformed tokens with a clear reason", () => {
    for (const bad of ["a.b", "a.b.c.d", "!!.e30.", "e30.!!.", "bnVsbA.e30.", "e30.WzFd."]) {
      expect(() => parseJws(bad)).toThrow(MalformedJwsError);
    }
    expect(looksLikeJwt("abc")).toBe(false);
    expect(looksLikeJwt("a.b.c")).toBe(true);
    expect(looksLikeJwt("x".repeat(2 << 20))).toBe(false);
  });

  it("key ids are base64url(SHA-256(PKIX DER)); PEM files yield public keys from private keys and certificates", () => {
    expect(keyIdOf(rsa.publicKey)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const pem = rsa.privateKey.export({ type: "pkcs1", format: "pem" }) + (ec256.publicKey.export({ type: "spki", format: "pem" }) as string);
    const keys = publicKeysFromPem(pem as string, "f.pem");
    expect(keys.map(keyIdOf)).toEqual([keyIdOf(rsa.publicKey), keyIdOf(ec256.publicKey)]);
    expect(privateKeyFromPem(pem as string, "f.pem").asymmetricKeyType).toBe("rsa");
    expect(() => publicKeysFromPem("nothing", "empty.pem")).toThrow("empty.pem: data does not contain any valid RSA or ECDSA public keys");
  });
});
