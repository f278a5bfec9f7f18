// OIDC discovery of the service-account issuer (upstream pkg/serviceaccount/openidmetadata.go):
// /.well-known/openid-configuration names the issuer (the first --service-account-issuer), the
// JWKS URI and the signing algorithms; /openid/v1/jwks lists every verifying key. Served only for
// an https issuer, as upstream. The JWKS URI's host is the one the client reached kapi at.
import type { KeyObject } from "node:crypto";
import type { NonResourceHandler } from "../../http/context.js";
import { header } from "../../http/exchange.js";
import { writeBytes } from "../../http/respond.js";
import { algorithmFor, keyIdOf } from "../jwt/jws.js";

export const openIdConfigurationPath = "/.well-known/openid-configuration";
export const jwksPath = "/openid/v1/jwks";
const cacheControl = "public, max-age=3600";

/** A public key as a JWK (go-jose's field order: use, kty, kid, crv, alg, x, y, n, e). */
export function publicJwk(key: KeyObject): Record<string, unknown> {
  const jwk = key.export({ format: "jwk" }) as Record<string, string>;
  const alg = algorithmFor(key);
  if (jwk.kty === "EC") return { use: "sig", kty: "EC", kid: keyIdOf(key), crv: jwk.crv, alg, x: jwk.x, y: jwk.y };
  return { use: "sig", kty: "RSA", kid: keyIdOf(key), alg, n: jwk.n, e: jwk.e };
}

export function jwksDocument(keys: readonly KeyObject[]): { keys: Record<string, unknown>[] } {
  return { keys: keys.filter((k) => supported(k)).map(publicJwk) };
}

const supported = (k: KeyObject) => {
  try {
    algorithmFor(k);
    return true;
  } catch {
    return false;
  }
};

export function openIdConfiguration(issuer: string, jwksUri: string, keys: readonly KeyObject[]): Record<string, unknown> {
  const algs = [...new Set(keys.filter(supported).map(algorithmFor))].sort();
  return {
    issuer,
    jwks_uri: jwksUri,
    response_types_supported: ["id_token"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: algs,
  };
}

/** Whether upstream would serve discovery for this issuer (an https URL). */
export function discoverable(issuer: string): boolean {
  try {
    return new URL(issuer).protocol === "https:";
  } catch {
    return false;
  }
}

export function openIdHandler(issuer: string, keys: readonly KeyObject[]): NonResourceHandler {
  const jwks = Buffer.from(JSON.stringify(jwksDocument(keys)));
  return (ex) => {
    if (ex.path !== openIdConfigurationPath && ex.path !== jwksPath) return false;
    if (ex.method !== "GET" && ex.method !== "HEAD") return false;
    if (ex.path === jwksPath) {
      writeBytes(ex, 200, jwks, "application/jwk-set+json", { headers: { "cache-control": cacheControl } });
      return true;
    }
    const host = header(ex.headers, "host") ?? header(ex.headers, ":authority") ?? "localhost";
    const doc = openIdConfiguration(issuer, `https://${host}${jwksPath}`, keys);
    writeBytes(ex, 200, Buffer.from(JSON.stringify(doc)), "application/json", { headers: { "cache-control": cacheControl } });
    return true;
  };
}
