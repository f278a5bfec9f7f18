// Signing service-account tokens with the server's key: the TokenRequest handler signs bound
// tokens and the tokens controller signs legacy Secret tokens, in the format this folder's
// authenticator verifies.
import { createPublicKey, type KeyObject } from "node:crypto";
import { keyIdOf, signJws } from "../jwt/jws.js";
import { legacyTokenClaims } from "./claims.js";

/** Signs claims with the signing key; the header names its key id, as upstream's generator does. */
export function tokenSigner(signingKey: KeyObject) {
  const kid = keyIdOf(createPublicKey(signingKey));
  return (claims: Record<string, unknown>) => signJws(claims, signingKey, { kid });
}

/** A legacy token for a Secret of type kubernetes.io/service-account-token. */
export function legacyToken(signingKey: KeyObject, sa: { namespace: string; name: string; uid: string }, secretName: string): string {
  return tokenSigner(signingKey)(legacyTokenClaims(sa, secretName));
}
