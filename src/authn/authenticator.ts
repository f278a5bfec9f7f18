import type { X509Certificate } from "node:crypto";
import type { UserInfo } from "./user.js";

/** A client certificate the TLS layer verified against the client CAs. */
export interface ClientCertificate {
  /** The leaf's subject: CN and each O. */
  commonName: string;
  organizations: string[];
  /**
   * The verified chain: the leaf first, then its issuer, and so on up to the trusted root (an
   * authenticating proxy's authenticator checks the issuer against its own CA).
   */
  chain: X509Certificate[];
}

/** What an authenticator may look at: headers, path and the verified TLS peer. */
export interface AuthnRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  peerCertificate?: ClientCertificate;
}

/**
 * undefined: this method does not apply (try the next one).
 * { user }: authenticated. { error }: the credential was presented and is invalid (401).
 */
export type AuthnResult = { user: UserInfo } | { error: string } | undefined;

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
