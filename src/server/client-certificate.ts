// The client certificate of a TLS connection, for authenticators: the leaf's subject and the
// chain it was verified with. A connection's certificate does not change, and reading it costs
// tens of microseconds, so it is read once per socket — every request on a keep-alive or HTTP/2
// connection would otherwise repeat it.
import { X509Certificate } from "node:crypto";
import type { DetailedPeerCertificate, TLSSocket } from "node:tls";
import type { ClientCertificate } from "../authn/authenticator.js";

const known = new WeakMap<TLSSocket, ClientCertificate | null>();

/** Longer chains than this are not followed (a loop guard; real chains are 2–4 long). */
const maxChainLength = 10;

/** The verified client certificate of the socket's peer; undefined when none was verified. */
export function clientCertificate(socket: TLSSocket | undefined): ClientCertificate | undefined {
  if (!socket || !socket.authorized) return undefined;
  const cached = known.get(socket);
  if (cached !== undefined) return cached ?? undefined;
  const read = readClientCertificate(socket);
  known.set(socket, read ?? null);
  return read;
}

function readClientCertificate(socket: TLSSocket): ClientCertificate | undefined {
  // `true`: with issuers — Node completes the chain the client sent from the trusted CAs.
  const leaf = socket.getPeerCertificate?.(true);
  if (!leaf || !leaf.subject || !leaf.raw) return undefined;
  const o = leaf.subject.O as string | string[] | undefined;
  return {
    commonName: String(leaf.subject.CN ?? ""),
    organizations: o === undefined ? [] : Array.isArray(o) ? o : [o],
    chain: chainOf(leaf),
  };
}

/** Leaf first, then each issuer while the link holds: named as issuer and its signature checks. */
function chainOf(leaf: DetailedPeerCertificate): X509Certificate[] {
  const chain = [new X509Certificate(leaf.raw)];
  let node = leaf;
  while (chain.length < maxChainLength && node.issuerCertificate && node.issuerCertificate !== node && node.issuerCertificate.raw) {
    const issuer = new X509Certificate(node.issuerCertificate.raw);
    const last = chain[chain.length - 1]!;
    if (issuer.fingerprint256 === last.fingerprint256) break; // a self-signed root ends it
    if (!last.checkIssued(issuer) || !last.verify(issuer.publicKey)) break;
    chain.push(issuer);
    node = node.issuerCertificate;
  }
  return chain;
}
