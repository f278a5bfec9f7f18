// Authenticating proxy (--requestheader-*): a request whose client certificate verifies against
// --requestheader-client-ca-file (a pool of its own, apart from --client-ca-file) and, when
// --requestheader-allowed-names is set, whose CN is listed, is served as the user its headers
// name. First in the union, as upstream. The identity headers are removed from every request this
// authenticator sees, trusted or not, so nothing after authentication can read them.
import { readFileSync } from "node:fs";
import type { X509Certificate } from "node:crypto";
import type { Authenticator } from "../authenticator.js";
import { cachedVerifier, parseCertificates } from "../x509.js";
import { checkHeaderFlag, clearIdentityHeaders, identityFromHeaders, type IdentityHeaders } from "./headers.js";

export interface RequestHeaderOptions extends IdentityHeaders {
  /** The front proxy's CA bundle (PEM text or parsed). */
  clientCA: string | readonly X509Certificate[];
  /** CNs allowed to assert identities; empty: any certificate from the CA. */
  allowedNames: readonly string[];
}

export function requestHeaderAuthenticator(o: RequestHeaderOptions): Authenticator {
  const roots = typeof o.clientCA === "string" ? parseCertificates(o.clientCA, "requestheader-client-ca-file") : o.clientCA;
  const verify = cachedVerifier(roots);
  const headers: IdentityHeaders = {
    usernameHeaders: checkHeaderFlag("requestheader-username-headers", o.usernameHeaders),
    uidHeaders: checkHeaderFlag("requestheader-uid-headers", o.uidHeaders),
    groupHeaders: checkHeaderFlag("requestheader-group-headers", o.groupHeaders),
    extraHeaderPrefixes: checkHeaderFlag("requestheader-extra-headers-prefix", o.extraHeaderPrefixes),
  };
  const allowed = o.allowedNames;
  return {
    name: "requestheader",
    authenticate(req) {
      try {
        const cert = req.peerCertificate;
        if (!cert || cert.chain.length === 0 || roots.length === 0) return undefined;
        const v = verify(cert);
        if ("error" in v) return { error: v.error };
        if (allowed.length > 0 && !allowed.includes(cert.commonName)) return { error: `x509: subject with cn=${cert.commonName} is not in the allowed list` };
        const id = identityFromHeaders(headers, req.headers, req.rawHeaders);
        if (!id) return undefined;
        return { user: { name: id.name, uid: id.uid || undefined, groups: id.groups, extra: id.extra } };
      } finally {
        clearIdentityHeaders(headers, req.headers, req.rawHeaders);
      }
    },
  };
}

/** The --requestheader-* flags. */
export interface RequestHeaderFlags {
  requestheaderClientCAFile?: string;
  requestheaderAllowedNames?: string[];
  requestheaderUsernameHeaders?: string[];
  requestheaderUIDHeaders?: string[];
  requestheaderGroupHeaders?: string[];
  requestheaderExtraHeadersPrefix?: string[];
}

/**
 * The authenticator the flags ask for (none without --requestheader-client-ca-file, as upstream)
 * and the CA bundle the TLS layer must also ask client certificates from.
 */
export function requestHeaderFromFlags(f: RequestHeaderFlags): { authenticator?: Authenticator; clientCA?: string } {
  // Upstream validates the header flags whether or not the CA file is given.
  checkHeaderFlag("requestheader-username-headers", f.requestheaderUsernameHeaders ?? []);
  checkHeaderFlag("requestheader-uid-headers", f.requestheaderUIDHeaders ?? []);
  checkHeaderFlag("requestheader-group-headers", f.requestheaderGroupHeaders ?? []);
  checkHeaderFlag("requestheader-extra-headers-prefix", f.requestheaderExtraHeadersPrefix ?? []);
  checkHeaderFlag("requestheader-allowed-names", f.requestheaderAllowedNames ?? []);
  if (!f.requestheaderClientCAFile) return {};
  let pem: string;
  try {
    pem = readFileSync(f.requestheaderClientCAFile, "utf8");
  } catch (e) {
    throw new Error(`failed to load request-header-client-ca-file: open ${f.requestheaderClientCAFile}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or directory" : (e as Error).message}`);
  }
  const authenticator = requestHeaderAuthenticator({
    clientCA: parseCertificates(pem, f.requestheaderClientCAFile),
    allowedNames: f.requestheaderAllowedNames ?? [],
    usernameHeaders: f.requestheaderUsernameHeaders ?? [],
    uidHeaders: f.requestheaderUIDHeaders ?? [],
    groupHeaders: f.requestheaderGroupHeaders ?? [],
    extraHeaderPrefixes: f.requestheaderExtraHeadersPrefix ?? [],
  });
  return { authenticator, clientCA: pem };
}
