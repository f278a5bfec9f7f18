// Client certificate authentication: the TLS layer verified the chain against --client-ca-file;
// here the subject becomes the user (CN → name, each O → a group).
import type { Authenticator } from "./authenticator.js";

export const x509Authenticator: Authenticator = {
  name: "x509",
  authenticate(req) {
    const cert = req.peerCertificate;
    if (!cert) return undefined;
    if (!cert.commonName) return { error: "x509: subject with cn=\"\" is not allowed" };
    return { user: { name: cert.commonName, groups: cert.organizations } };
  },
};
