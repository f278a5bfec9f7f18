// Claims, flag validation, TokenRequest validation, key resolution and discovery documents.
import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { keyIdOf } from "../jwt/jws.js";
import { boundTokenClaims, checkTimes, legacyTokenClaims, splitUsername, userInfoOf } from "./claims.js";
import { resolveServiceAccountConfig, validateServiceAccountFlags, type ServiceAccountFlags } from "./config.js";
import { jwksDocument, openIdConfiguration } from "./openid.js";
import { validateTokenRequestSpec } from "../../handlers/token-request.js";

const flags = (f: Partial<ServiceAccountFlags> = {}): ServiceAccountFlags => ({
  serviceAccountKeyFiles: [],
  serviceAccountIssuers: [],
  serviceAccountLookup: true,
  apiAudiences: [],
  serviceAccountMaxTokenExpirationSeconds: 0,
  serviceAccountExtendTokenExpiration: true,
  ...f,
});

describe("claims", () => {
  it("bound token claims: upstream's names, sorted as go-jose writes them", () => {
    const c = boundTokenClaims({
      serviceAccount: { namespace: "ns", name: "sa", uid: "u1" },
      pod: { name: "p", uid: "u2" },
      node: { name: "n", uid: "u3" },
      expirationSeconds: 600,
      warnAfterSeconds: 3607,
      audiences: ["a"],
      issuer: "https://i",
      now: 1000,
    });
    expect(Object.keys(c)).toEqual(["aud", "exp", "iat", "iss", "jti", "kubernetes.io", "nbf", "sub"]);
    expect(c).toMatchObject({ aud: ["a"], exp: 1600, iat: 1000, nbf: 1000, iss: "https://i", sub: "system:serviceaccount:ns:sa" });
    expect(c.jti).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(c["kubernetes.io"]).toEqual({ namespace: "ns", node: { name: "n", uid: "u3" }, pod: { name: "p", uid: "u2" }, serviceaccount: { name: "sa", uid: "u1" }, warnafter: 4607 });
  });

  it("a token binds to one kind of object", () => {
    expect(() => boundTokenClaims({ serviceAccount: { namespace: "n", name: "s", uid: "u" }, secret: { name: "x", uid: "y" }, pod: { name: "p", uid: "q" }, expirationSeconds: 1, audiences: [], issuer: "i" })).toThrow(
      "internal error, token can only be bound to one object type",
    );
  });

  it("legacy claims", () => {
    expect(legacyTokenClaims({ namespace: "ns", name: "sa", uid: "u" }, "sec")).toEqual({
      iss: "kubernetes/serviceaccount",
      "kubernetes.io/serviceaccount/namespace": "ns",
      "kubernetes.io/serviceaccount/secret.name": "sec",
      "kubernetes.io/serviceaccount/service-account.name": "sa",
      "kubernetes.io/serviceaccount/service-account.uid": "u",
      sub: "system:serviceaccount:ns:sa",
    });
  });

  it("time checks with a one-minute leeway", () => {
    expect(checkTimes({ exp: 100 }, 160)).toBeUndefined();
    expect(checkTimes({ exp: 100 }, 161)).toBe("service account token has expired");
    expect(checkTimes({ nbf: 200 }, 140)).toBeUndefined();
    expect(checkTimes({ nbf: 200 }, 139)).toBe("service account token is not valid yet");
    expect(checkTimes({ iat: 200 }, 139)).toBe("service account token is issued in the future");
  });

  it("user info as upstream builds it", () => {
    expect(userInfoOf({ namespace: "ns", name: "sa", uid: "u" })).toEqual({ name: "system:serviceaccount:ns:sa", uid: "u", groups: ["system:serviceaccounts", "system:serviceaccounts:ns"] });
    expect(userInfoOf({ namespace: "ns", name: "sa", uid: "u", podName: "p", podUid: "pu", nodeName: "n", credentialId: "JTI=x" }).extra).toEqual({
      "authentication.kubernetes.io/pod-name": ["p"],
      "authentication.kubernetes.io/pod-uid": ["pu"],
      "authentication.kubernetes.io/credential-id": ["JTI=x"],
      "authentication.kubernetes.io/node-name": ["n"],
    });
    expect(splitUsername("system:serviceaccount:ns:sa")).toEqual(["ns", "sa"]);
    expect(splitUsername("system:serviceaccount:ns")).toBeUndefined();
  });
});

describe("TokenRequest validation", () => {
  it("10 minutes to 2^32 seconds", () => {
    expect(validateTokenRequestSpec(600)).toEqual([]);
    expect(validateTokenRequestSpec(599)[0]).toMatchObject({ field: "spec.expirationSeconds", message: "may not specify a duration less than 10 minutes" });
    expect(validateTokenRequestSpec(2 ** 32 + 1)[0]).toMatchObject({ message: "may not specify a duration larger than 2^32 seconds" });
  });
});

describe("flags", () => {
  it("issuer and max expiration checks", () => {
    expect(validateServiceAccountFlags(flags({ serviceAccountIssuers: ["https://a", "https://a", ""] }))).toEqual([
      'service-account-issuer "https://a" is already specified',
      "service-account-issuer should not be an empty string",
    ]);
    expect(validateServiceAccountFlags(flags({ serviceAccountMaxTokenExpirationSeconds: 3599 }))).toEqual(["the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"]);
    expect(validateServiceAccountFlags(flags({ serviceAccountMaxTokenExpirationSeconds: 3600 }))).toEqual([]);
    expect(validateServiceAccountFlags(flags({ serviceAccountIssuers: ["kubernetes/serviceaccount", "api"] }))).toEqual([]);
  });

  it("defaults: kapi's issuer, audiences = issuers, a generated key kept in the cert dir", () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-sa-cfg-"));
    const c = resolveServiceAccountConfig(flags(), dir);
    expect(c.issuers).toEqual(["https://kubernetes.default.svc.cluster.local"]);
    expect(c.apiAudiences).toEqual(c.issuers);
    expect(existsSync(join(dir, "sa.key"))).toBe(true);
    const again = resolveServiceAccountConfig(flags({ serviceAccountIssuers: ["https://x", "https://y"] }), dir);
    expect(keyIdOf(createPublicKey(again.signingKey!))).toBe(keyIdOf(createPublicKey(c.signingKey!)));
    expect(again.apiAudiences).toEqual(["https://x", "https://y"]);
  });

  it("--service-account-key-file: public keys verify, a private key among them signs; --tls-private-key-file as fallback", () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-sa-cfg-"));
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const other = generateKeyPairSync("ec", { namedCurve: "secp384r1" });
    writeFileSync(join(dir, "pub.pem"), publicKey.export({ type: "spki", format: "pem" }));
    writeFileSync(join(dir, "priv.pem"), privateKey.export({ type: "pkcs8", format: "pem" }));
    writeFileSync(join(dir, "other.pem"), other.privateKey.export({ type: "sec1", format: "pem" }));
    const pubOnly = resolveServiceAccountConfig(flags({ serviceAccountKeyFiles: [join(dir, "pub.pem")] }), dir);
    expect(pubOnly.signingKey).toBeUndefined();
    expect(pubOnly.publicKeys).toHaveLength(1);
    const tls = resolveServiceAccountConfig(flags({ tlsPrivateKeyFile: join(dir, "priv.pem") }), undefined);
    expect(tls.signingKey?.asymmetricKeyType).toBe("rsa");
    const both = resolveServiceAccountConfig(flags({ serviceAccountKeyFiles: [join(dir, "pub.pem")], serviceAccountSigningKeyFile: join(dir, "other.pem") }), undefined);
    expect(both.publicKeys).toHaveLength(2);
    expect(both.signingKey?.asymmetricKeyDetails?.namedCurve).toBe("secp384r1");
    writeFileSync(join(dir, "junk.pem"), "nothing here");
    expect(() => resolveServiceAccountConfig(flags({ serviceAccountKeyFiles: [join(dir, "junk.pem")] }), undefined)).toThrow(/^failed to parse key file ".*junk.pem": /);
    expect(() => resolveServiceAccountConfig(flags({ serviceAccountKeyFiles: [join(dir, "pub.pem")], serviceAccountSigningKeyFile: join(dir, "pub.pem") }), undefined)).toThrow(/^failed to parse service-account-issuer-key-file: /);
    void readFileSync;
  });

  it("extended expiration follows a longer max", () => {
    expect(resolveServiceAccountConfig(flags({ serviceAccountMaxTokenExpirationSeconds: 2 * 365 * 24 * 3600 }), undefined).maxExtendedExpirationSeconds).toBe(2 * 365 * 24 * 3600);
    expect(resolveServiceAccountConfig(flags({ serviceAccountMaxTokenExpirationSeconds: 7200 }), undefined).maxExtendedExpirationSeconds).toBe(365 * 24 * 3600);
  });
});

describe("discovery documents", () => {
  it("openid-configuration and JWKS fields", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey;
    const ec = generateKeyPairSync("ec", { namedCurve: "secp521r1" }).publicKey;
    expect(openIdConfiguration("https://i", "https://h/openid/v1/jwks", [rsa, ec])).toEqual({
      issuer: "https://i",
      jwks_uri: "https://h/openid/v1/jwks",
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["ES512", "RS256"],
    });
    const jwks = jwksDocument([rsa, ec]);
    expect(Object.keys(jwks.keys[0])).toEqual(["use", "kty", "kid", "alg", "n", "e"]);
    expect(jwks.keys[0]).toMatchObject({ use: "sig", kty: "RSA", kid: keyIdOf(rsa), alg: "RS256", e: "AQAB" });
    expect(jwks.keys[1]).toMatchObject({ use: "sig", kty: "EC", crv: "P-521", alg: "ES512", kid: keyIdOf(ec) });
  });
});
