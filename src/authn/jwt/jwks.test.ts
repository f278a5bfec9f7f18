import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { describe, expect, it } from "vitest";
import { emptyKeySet, keySetFromJwks, verifiedByKeySet } from "./jwks.js";
import { parseJws, signJws } from "./jws.js";

const rsaA = generateKeyPairSync("rsa", { modulusLength: 2048 });
const rsaB = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
const jwk = (key: KeyObject, extra: Record<string, unknown> = {}) => ({ ...(key.export({ format: "jwk" }) as object), ...extra });
const token = (key: KeyObject, header: Record<string, unknown> = {}) => parseJws(signJws({ sub: "x" }, key, header));

describe("JWKS key selection", () => {
  const set = keySetFromJwks({ keys: [jwk(rsaA.publicKey, { kid: "a", use: "sig" }), jwk(rsaB.publicKey, { kid: "b" }), jwk(ec.publicKey, { kid: "e" })] });

  it("verifies with the key the token's kid names, and not with another's", async () => {
    expect(await verifiedByKeySet(token(rsaB.privateKey, { kid: "b" }), set)).toBe(true);
    expect(await verifiedByKeySet(token(ec.privateKey, { kid: "e" }), set)).toBe(true);
    expect(await verifiedByKeySet(token(rsaB.privateKey, { kid: "a" }), set)).toBe(false);
    expect(await verifiedByKeySet(token(rsaA.privateKey, { kid: "ghost" }), set)).toBe(false);
  });

  it("tries every key of the token's type when it names no kid, or an empty one (go-oidc's rule)", async () => {
    expect(await verifiedByKeySet(token(rsaB.privateKey), set)).toBe(true);
    expect(await verifiedByKeySet(token(rsaB.privateKey, { kid: "" }), set)).toBe(true);
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 });
    expect(await verifiedByKeySet(token(other.privateKey), set)).toBe(false);
  });

  it("does not use an encryption key, a private member or a key of the wrong type", async () => {
    expect(await verifiedByKeySet(token(rsaA.privateKey, { kid: "a" }), keySetFromJwks({ keys: [jwk(rsaA.publicKey, { kid: "a", use: "enc" })] }))).toBe(false);
    expect(await verifiedByKeySet(token(rsaA.privateKey, { kid: "a" }), keySetFromJwks({ keys: [jwk(rsaA.privateKey, { kid: "a" })] }))).toBe(false);
    // An ES256 header naming the RSA key.
    expect(await verifiedByKeySet(token(ec.privateKey, { kid: "a" }), set)).toBe(false);
    expect(await verifiedByKeySet(token(rsaA.privateKey), emptyKeySet)).toBe(false);
  });

  it("skips an unusable member and still verifies with the others", async () => {
    const broken = keySetFromJwks({ keys: [{ kty: "RSA", kid: "a", n: "AA", e: "AQAB" }, jwk(rsaA.publicKey, { kid: "a" })] });
    expect(await verifiedByKeySet(token(rsaA.privateKey, { kid: "a" }), broken)).toBe(true);
  });

  it("refuses a document that is not a key set", () => {
    expect(() => keySetFromJwks({})).toThrow("malformed key set: JSON Web Key Set malformed");
    expect(() => keySetFromJwks({ keys: ["not a key"] })).toThrow("malformed key set");
  });
});
