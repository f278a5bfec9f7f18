// Compact JWS (RFC 7515) as service-account and OIDC tokens carry them: parsing, signature
// checks for the algorithms Kubernetes accepts, and signing (service-account tokens). Functions
// over node:crypto KeyObjects; claims are the callers' business.
//
// Signatures are checked by jose, the well-reviewed JOSE implementation, so kapi carries no
// signature code of its own on the path that decides who a caller is. Parsing stays here: the
// messages clients see for a malformed token are go-jose's, and jose words them differently.
// Signing stays on node:crypto: it is synchronous (a legacy token is made inside a synchronous
// Secret update) and jose signs only asynchronously; it sends nothing to be trusted on our side.
import { createHash, sign as cryptoSign, type KeyObject } from "node:crypto";
import type { flattenedVerify as FlattenedVerify } from "jose";

export type JwsAlgorithm = "RS256" | "RS384" | "RS512" | "PS256" | "PS384" | "PS512" | "ES256" | "ES384" | "ES512";

export const supportedAlgorithms: readonly JwsAlgorithm[] = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"];

export interface ParsedJws {
  readonly header: Readonly<Record<string, unknown>>;
  readonly payload: Readonly<Record<string, unknown>>;
  /** The three base64url segments as sent: the signature covers `<protected>.<payload>`. */
  readonly segments: { readonly protected: string; readonly payload: string; readonly signature: string };
  readonly alg: string;
  readonly kid?: string;
}

/** A token that is not a well-formed compact JWS (the message says what is wrong). */
export class MalformedJwsError extends Error {}

/** Largest token considered at all: larger ones are refused before any decoding. */
export const maxTokenLength = 1 << 20;

const base64url = /^[A-Za-z0-9_-]*$/;

function decodeSegment(s: string, what: string): Buffer {
  if (!base64url.test(s) || s.length % 4 === 1) throw new MalformedJwsError(`malformed ${what}: illegal base64 data`);
  return Buffer.from(s, "base64url");
}

function decodeJsonObject(s: string, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(decodeSegment(s, what).toString("utf8"));
  } catch (e) {
    if (e instanceof MalformedJwsError) throw e;
    throw new MalformedJwsError(`malformed ${what}: not JSON`);
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new MalformedJwsError(`malformed ${what}: not a JSON object`);
  return v as Record<string, unknown>;
}

/** Does this look like a JWT at all (three dot-separated parts)? Authenticators decline otherwise. */
export function looksLikeJwt(token: string): boolean {
  if (token.length > maxTokenLength) return false;
  const first = token.indexOf(".");
  return first > 0 && token.indexOf(".", first + 1) > first + 1 && token.split(".").length === 3;
}

export function parseJws(token: string): ParsedJws {
  if (token.length > maxTokenLength) throw new MalformedJwsError("token too large");
  const parts = token.split(".");
  if (parts.length !== 3) throw new MalformedJwsError("compact JWS format must have three parts");
  const [h, p, s] = parts as [string, string, string];
  const header = decodeJsonObject(h, "header");
  const payload = decodeJsonObject(p, "payload");
  decodeSegment(s, "signature");
  const alg = typeof header.alg === "string" ? header.alg : "";
  if (header.crit !== undefined) throw new MalformedJwsError("unsupported critical header");
  return { header, payload, segments: { protected: h, payload: p, signature: s }, alg, kid: typeof header.kid === "string" ? header.kid : undefined };
}

// jose is loaded by the first token to verify, not at start-up.
let verifier: Promise<typeof FlattenedVerify> | undefined;
const loadVerifier = () => (verifier ??= import("jose").then((j) => j.flattenedVerify));

const hashOf = (alg: string): string => `sha${alg.slice(2)}`;
const ecCurveOf: Record<string, string> = { ES256: "prime256v1", ES384: "secp384r1", ES512: "secp521r1" };

/** Checks the signature; false for a bad signature, an unsupported alg (including `none`) or a key of the wrong kind. */
export async function verifyJws(jws: ParsedJws, key: KeyObject | CryptoKey): Promise<boolean> {
  try {
    await (await loadVerifier())(jws.segments, key, { algorithms: supportedAlgorithms as JwsAlgorithm[] });
    return true;
  } catch {
    return false; // jose throws for every refusal: a wrong signature, algorithm or kind of key
  }
}

/** Whether any of `keys` verifies the signature, tried in order until one does. */
export async function verifiedByAny(jws: ParsedJws, keys: Iterable<KeyObject>): Promise<boolean> {
  for (const key of keys) if (await verifyJws(jws, key)) return true;
  return false;
}

/** Signs claims as a compact JWS with `alg` (RS256 for RSA keys, ES256/384/512 by curve, as upstream picks). */
export function signJws(claims: Readonly<Record<string, unknown>>, key: KeyObject, header: Readonly<Record<string, unknown>> = {}): string {
  const alg = algorithmFor(key);
  const h = Buffer.from(JSON.stringify({ alg, ...header })).toString("base64url");
  const p = Buffer.from(JSON.stringify(claims)).toString("base64url");
  const input = Buffer.from(`${h}.${p}`, "ascii");
  const sig = alg.startsWith("ES") ? cryptoSign(hashOf(alg), input, { key, dsaEncoding: "ieee-p1363" }) : cryptoSign(hashOf(alg), input, key);
  return `${h}.${p}.${sig.toString("base64url")}`;
}

/** The algorithm a signing key signs with: RS256 for RSA; ES256/ES384/ES512 by the EC curve. */
export function algorithmFor(key: KeyObject): JwsAlgorithm {
  if (key.asymmetricKeyType === "rsa") return "RS256";
  if (key.asymmetricKeyType === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const alg = (Object.keys(ecCurveOf) as JwsAlgorithm[]).find((a) => ecCurveOf[a] === curve);
    if (alg) return alg;
  }
  throw new Error(`unsupported signing key type ${key.asymmetricKeyType}${key.asymmetricKeyDetails?.namedCurve ? ` (${key.asymmetricKeyDetails.namedCurve})` : ""}`);
}

/** upstream keyIDFromPublicKey: base64url(SHA-256(PKIX DER of the public key)), no padding. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash("sha256").update(publicKey.export({ type: "spki", format: "der" })).digest("base64url");
}
