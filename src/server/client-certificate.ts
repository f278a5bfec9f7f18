// The client certificate a TLS connection presented, for authenticators: the leaf's subject and
// every certificate the handshake carried (the leaf first, then what the client sent and what the
// TLS layer found among the trusted CAs). The TLS layer only asks for a certificate and does not
// reject the connection: each authenticator (x509 against --client-ca-file, the request header
// method against --requestheader-client-ca-file) verifies the chain against its own CA pool, so a
// certificate that verifies against neither is a 401, not anonymous. A connection's certificate
// does not change, and reading it costs tens of microseconds, so it is read once per socket.
import { X509Certificate } from "node:crypto";
import type { DetailedPeerCertificate, TLSSocket } from "node:tls";
import type { ClientCertificate } from "../authn/authenticator.js";

const known = new WeakMap<TLSSocket, ClientCertificate | null>();

/** Longer chains than this are not followed (a loop guard; real chains are 2–4 long). */
const maxChainLength = 10;

/** The certificate the socket's peer presented, verified or not; undefined when it sent none. */
export function clientCertificate(socket: TLSSocket | undefined): ClientCertificate | undefined {
  if (!socket) return undefined;
  // The cache first: an HTTP/2 session's socket is a Proxy whose every method read binds a new
  // function, a cost on every request.
  const cached = known.get(socket);
  if (cached !== undefined) return cached ?? undefined;
  if (typeof socket.getPeerCertificate !== "function") return undefined;
  const read = readClientCertificate(socket);
  known.set(socket, read ?? null);
  return read;
}

function readClientCertificate(socket: TLSSocket): ClientCertificate | undefined {
  // `true`: with issuers — the certificates the client sent, completed from the trusted CAs.
  const leaf = socket.getPeerCertificate(true);
  if (!leaf || !leaf.subject || !leaf.raw) return undefined;
  const o = leaf.subject.O as string | string[] | undefined;
  const cn = leaf.subject.CN as string | string[] | undefined;
  return {
    // Several CN attributes: the last one, as Go's pkix.Name keeps it.
    commonName: String((Array.isArray(cn) ? cn[cn.length - 1] : cn) ?? ""),
    organizations: o === undefined ? [] : Array.isArray(o) ? o : [o],
    chain: chainOf(leaf),
  };
}

/** Leaf first, then each distinct issuer linked to it (unverified: authenticators verify). */
function chainOf(leaf: DetailedPeerCertificate): X509Certificate[] {
  const chain = [new X509Certificate(leaf.raw)];
  const seen = new Set([chain[0]!.fingerprint256]);
  let node = leaf;
  while (chain.length < maxChainLength && node.issuerCertificate && node.issuerCertificate !== node && node.issuerCertificate.raw) {
    const issuer = new X509Certificate(node.issuerCertificate.raw);
    if (seen.has(issuer.fingerprint256)) break;
    seen.add(issuer.fingerprint256);
    chain.push(issuer);
    node = node.issuerCertificate;
  }
  return chain;
}
