import type { X509Certificate } from "node:crypto";
import type { UserInfo } from "../apimachinery/user.js";

/**
 * The client certificate a connection presented. The TLS layer does not verify it: each method
 * (x509, request header) verifies `chain` against its own CA pool.
 */
export interface ClientCertificate {
  /** The leaf's subject: CN and each O. */
  commonName: string;
  organizations: string[];
  /**
   * What the handshake carried: the leaf first, then the certificates the client sent and those the
   * TLS layer found among the trusted CAs (unverified; see src/authn/x509.ts verifyClientChain).
   */
  chain: X509Certificate[];
}

/** What an authenticator may look at: headers, path and the TLS peer's certificate. */
export interface AuthnRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /**
   * The headers as received, name/value alternating (Node's rawHeaders): repeated headers stay
   * apart here (in `headers` Node joins them with ", "). Optional.
   */
  rawHeaders?: string[] | undefined;
  peerCertificate?: ClientCertificate | undefined;
  /**
   * The audiences the credential must be valid for (upstream's request audiences: --api-audiences
   * on normal requests, spec.audiences of a TokenReview). Absent: no audience check.
   */
  audiences?: string[];
}

/**
 * undefined: this method does not apply (try the next one).
 * { user }: authenticated; `warnings` go to the response's Warning header (a credential that
 * still works but should be replaced). { error }: the credential was presented and is invalid (401).
 */
export type AuthnResult =
  | {
      user: UserInfo;
      audiences?: string[];
      warnings?: string[];
      /**
       * The method hands this same user object to later requests (a connection's certificate), so
       * the union may remember the user it makes from it instead of making one per request.
       */
      reused?: true;
    }
  | { error: string }
  | undefined;

export interface Authenticator {
  name: string;
  authenticate(req: AuthnRequest): AuthnResult | Promise<AuthnResult>;
}

export function bearerToken(req: AuthnRequest): string | undefined {
  const h = req.headers["authorization"];
  const v = Array.isArray(h) ? h[0] : h;
  if (!v) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(v);
  return m ? m[1] : undefined;
}
