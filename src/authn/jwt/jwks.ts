// A JSON Web Key Set (RFC 7517) as an OIDC issuer publishes it, read and searched by jose
// (createLocalJWKSet): which members are usable keys, which match a token's header, importing them.
// The selection follows go-oidc's rule — the keys with the token's kid, every key when it names
// none (an empty kid counts as none) — and tries each candidate until one verifies. jose is
// stricter than go-jose in three corners, all refusals of keys a careful issuer never publishes
// for signing: a key whose `use` is not "sig", whose `key_ops` lack "verify", or whose `alg`
// differs from the token's is not tried.
import type { createLocalJWKSet, JWSHeaderParameters } from "jose";
import { isPlainObject } from "../../apimachinery/json-value.js";
import { verifyJws, type ParsedJws } from "./jws.js";

type JoseKeySet = ReturnType<typeof createLocalJWKSet>;

// jose is loaded by the first token checked against a key set, not at start-up.
let jose: Promise<typeof import("jose")> | undefined;
const loadJose = () => (jose ??= import("jose"));

/** A JWKS document, checked when read; jose's lookup over it is built by the first verification. */
export class KeySet {
  private lookup?: Promise<JoseKeySet>;
  constructor(private readonly doc: { keys: object[] }) {}
  keys(): Promise<JoseKeySet> {
    return (this.lookup ??= loadJose().then((j) => j.createLocalJWKSet(this.doc as Parameters<typeof createLocalJWKSet>[0])));
  }
}

/** The key set of a JWKS document; throws when it is not one (no `keys` array, a member that is not an object), as jose does. */
export function keySetFromJwks(doc: unknown): KeySet {
  if (!isPlainObject(doc) || !Array.isArray(doc.keys) || !doc.keys.every(isPlainObject)) throw new Error("malformed key set: JSON Web Key Set malformed");
  return new KeySet(structuredClone(doc) as { keys: object[] });
}

/** An empty set (before the first fetch): verifies nothing. */
export const emptyKeySet = new KeySet({ keys: [] });

/** Whether a key of `keys` matching the token's header verifies its signature. */
export async function verifiedByKeySet(jws: ParsedJws, keys: KeySet): Promise<boolean> {
  const { kid, ...rest } = jws.header as JWSHeaderParameters;
  const header: JWSHeaderParameters = kid === undefined || kid === "" ? rest : { ...rest, kid };
  let candidates: AsyncIterable<Parameters<typeof verifyJws>[1]> | Parameters<typeof verifyJws>[1][];
  const [lookup, { errors }] = await Promise.all([keys.keys(), loadJose()]);
  try {
    candidates = [await lookup(header, undefined)];
  } catch (e) {
    if (!(e instanceof errors.JWKSMultipleMatchingKeys)) return false; // no key matches, or it cannot be imported
    candidates = e as unknown as AsyncIterable<Parameters<typeof verifyJws>[1]>;
  }
  for await (const key of candidates) if (await verifyJws(jws, key)) return true;
  return false;
}
