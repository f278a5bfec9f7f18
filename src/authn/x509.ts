// Client certificate authentication (--client-ca-file, several CAs in one file). The TLS layer only
// asks for a certificate; the chain is verified here, as kube-apiserver does: against this
// method's own CA pool, every certificate in its validity period, intermediates that are CAs, and
// the client-auth extended key usage. A certificate that is presented but does not verify is an
// error (401), never anonymous. CN → user name, each O → a group; an empty CN is not this method's.
import { X509Certificate } from "node:crypto";
import { pemBlocks } from "../apimachinery/pem.js";
import type { Authenticator, ClientCertificate } from "./authenticator.js";
import type { UserInfo } from "../apimachinery/user.js";
import { goQuote } from "../apimachinery/go-quote.js";

const clientAuthOid = "1.3.6.1.5.5.7.3.2";
const anyUsageOid = "2.5.29.37.0";
const maxChainDepth = 10;

/** Every certificate of a PEM bundle (several CAs in one file). */
export function parseCertificates(pem: string, source = "certificate bundle"): X509Certificate[] {
  const blocks = pemBlocks(pem).filter((b) => b.type === "CERTIFICATE");
  if (blocks.length === 0) throw new Error(`${source}: data does not contain any valid RSA or ECDSA certificates`);
  return blocks.map((b) => new X509Certificate(b.text));
}

/** Go's RFC 3339 rendering of a time, seconds precision, UTC. */
const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

function timeError(c: X509Certificate, now: Date): string | undefined {
  const from = new Date(c.validFrom);
  const to = new Date(c.validTo);
  if (now < from) return `x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} is before ${rfc3339(from)}`;
  if (now > to) return `x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} is after ${rfc3339(to)}`;
  return undefined;
}

/** Does `issuer` sign `child` (named as its issuer and the signature checks)? */
function signs(issuer: X509Certificate, child: X509Certificate): "yes" | "no" | "bad-signature" {
  if (child.issuer !== issuer.subject) return "no";
  try {
    return child.verify(issuer.publicKey) ? "yes" : "bad-signature";
  } catch {
    return "bad-signature";
  }
}

function displayName(c: X509Certificate): string {
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(c.subject)?.[1];
  if (cn) return cn;
  const o = /(?:^|\n)O=([^\n]*)/.exec(c.subject)?.[1];
  return o ?? `serial:${BigInt("0x" + c.serialNumber).toString()}`;
}

function signatureFailure(c: X509Certificate): string {
  return c.publicKey.asymmetricKeyType === "rsa" || c.publicKey.asymmetricKeyType === "rsa-pss" ? "crypto/rsa: verification error" : c.publicKey.asymmetricKeyType === "ed25519" ? "ed25519: invalid signature" : "x509: ECDSA verification failure";
}

/** The extended key usages of a certificate; undefined when it has none (any usage). */
function extKeyUsages(c: X509Certificate): string[] | undefined {
  const u = (c as unknown as { keyUsage?: string[] }).keyUsage;
  return u && u.length > 0 ? u : undefined;
}

export type ChainVerification = { chain: X509Certificate[] } | { error: string };

/**
 * Verifies `presented` (leaf first, then whatever else the client sent or the TLS layer added)
 * against `roots`, with Go's crypto/x509 rules and error texts for client certificates.
 */
export function verifyClientChain(presented: readonly X509Certificate[], roots: readonly X509Certificate[], now = new Date()): ChainVerification {
  const leaf = presented[0];
  if (!leaf) return { error: "x509: no certificate presented" };
  const leafTime = timeError(leaf, now);
  if (leafTime) return { error: leafTime };
  const intermediates = presented.slice(1);
  let lastError: string | undefined;
  let hint: { error: string; candidate: X509Certificate } | undefined;

  const build = (chain: X509Certificate[]): X509Certificate[] | undefined => {
    const current = chain[chain.length - 1]!;
    for (const root of roots) {
      if (root.fingerprint256 === current.fingerprint256) return chain.length === 1 ? chain : undefined;
      const s = signs(root, current);
      if (s === "bad-signature") hint ??= { error: signatureFailure(root), candidate: root };
      if (s !== "yes") continue;
      const t = timeError(root, now);
      if (t) {
        lastError = t;
        continue;
      }
      return [...chain, root];
    }
    if (chain.length >= maxChainDepth) return undefined;
    for (const inter of intermediates) {
      if (chain.some((c) => c.fingerprint256 === inter.fingerprint256)) continue;
      if (roots.some((r) => r.fingerprint256 === inter.fingerprint256)) continue;
      if (signs(inter, current) !== "yes") continue;
      const t = timeError(inter, now);
      if (t) {
        lastError = t;
        continue;
      }
      if (!inter.ca) {
        lastError = "x509: certificate is not authorized to sign other certificates";
        continue;
      }
      const found = build([...chain, inter]);
      if (found) return found;
    }
    return undefined;
  };

  // A certificate that is itself in the pool verifies on its own.
  const chain = roots.some((r) => r.fingerprint256 === leaf.fingerprint256) ? [leaf] : build([leaf]);
  if (!chain) {
    if (lastError) return { error: lastError };
    let msg = "x509: certificate signed by unknown authority";
    if (hint) msg += ` (possibly because of ${goQuote(hint.error)} while trying to verify candidate authority certificate ${goQuote(displayName(hint.candidate))})`;
    return { error: msg };
  }
  // Client-auth usage, nested through the chain: a certificate that lists usages must allow it.
  for (const c of chain) {
    const u = extKeyUsages(c);
    if (u && !u.includes(clientAuthOid) && !u.includes(anyUsageOid)) return { error: "x509: certificate specifies an incompatible key usage" };
  }
  return { chain };
}

// --- SKID / AKID for the error message (Go's certificateIdentifier) ---

interface Tlv {
  tag: number;
  start: number; // of the value
  end: number;
}

function readTlv(b: Buffer, at: number): Tlv {
  const tag = b[at]!;
  let len = b[at + 1]!;
  let start = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + b[start + i]!;
    start += n;
  }
  return { tag, start, end: start + len };
}

function children(b: Buffer, t: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = t.start; at < t.end; ) {
    const c = readTlv(b, at);
    out.push(c);
    at = c.end;
  }
  return out;
}

function keyIds(c: X509Certificate): { skid?: Buffer; akid?: Buffer } {
  try {
    const b = c.raw;
    const tbs = children(b, readTlv(b, 0))[0]!;
    const ext = children(b, tbs).find((t) => t.tag === 0xa3);
    if (!ext) return {};
    const out: { skid?: Buffer; akid?: Buffer } = {};
    for (const e of children(b, children(b, ext)[0]!)) {
      const parts = children(b, e);
      const oid = b.subarray(parts[0]!.start, parts[0]!.end).toString("hex");
      const value = parts[parts.length - 1]!; // OCTET STRING wrapping the extension's DER
      const inner = readTlv(b, value.start);
      if (oid === "551d0e") out.skid = b.subarray(inner.start, inner.end);
      if (oid === "551d23") {
        const kid = children(b, inner).find((t) => t.tag === 0x80);
        if (kid) out.akid = b.subarray(kid.start, kid.end);
      }
    }
    return out;
  } catch {
    return {};
  }
}

const colonHex = (d?: Buffer) => (d ? [...d].map((x) => x.toString(16).toUpperCase().padStart(2, "0")).join(":") : "");

/** kube-apiserver's name of a certificate in its messages: serial (decimal), SKID, AKID. */
export function certificateIdentifier(c: X509Certificate): string {
  const { skid, akid } = keyIds(c);
  return `SN=${BigInt("0x" + c.serialNumber).toString()}, SKID=${colonHex(skid)}, AKID=${colonHex(akid)}`;
}

/**
 * Verification of a connection's certificate against one pool, remembered per connection (the
 * certificate of a connection does not change) until the chain's validity window is left.
 */
export function cachedVerifier(roots: readonly X509Certificate[]) {
  const known = new WeakMap<ClientCertificate, { result: ChainVerification; from: number; to: number }>();
  return (cert: ClientCertificate): ChainVerification => {
    const now = Date.now();
    const hit = known.get(cert);
    if (hit && now >= hit.from && now <= hit.to) return hit.result;
    const result = verifyClientChain(cert.chain, roots, new Date(now));
    let from = -Infinity;
    let to = Infinity;
    if ("chain" in result) {
      for (const c of result.chain) {
        from = Math.max(from, Date.parse(c.validFrom));
        to = Math.min(to, Date.parse(c.validTo));
      }
    } else {
      // Failures are rechecked after a second (a clock edge can turn an early certificate valid).
      from = now;
      to = now + 1000;
    }
    known.set(cert, { result, from, to });
    return result;
  };
}

export function x509Authenticator(clientCA: string | readonly X509Certificate[]): Authenticator {
  const roots = typeof clientCA === "string" ? (clientCA.trim() ? parseCertificates(clientCA, "client-ca-file") : []) : clientCA;
  const verify = cachedVerifier(roots);
  // The answer for a certificate, made once per connection (its certificate is fixed for the
  // connection's life) and handed to every request on it: the same user object each time, which
  // lets the union add system:authenticated once per connection too. Users are never changed
  // once authenticated (impersonation builds a new one).
  const answers = new WeakMap<ClientCertificate, { user: UserInfo; reused: true }>();
  return {
    name: "x509",
    authenticate(req) {
      const cert = req.peerCertificate;
      if (!cert || cert.chain.length === 0) return undefined;
      if (roots.length === 0) return undefined; // no CA bundle: this method cannot authenticate anyone
      const v = verify(cert);
      if ("error" in v) return { error: `verifying certificate ${certificateIdentifier(cert.chain[0]!)} failed: ${v.error}` };
      // CN → user name; an empty CN is not this method's (the next method decides).
      if (!cert.commonName) return undefined;
      let answer = answers.get(cert);
      if (answer === undefined) answers.set(cert, (answer = { user: { name: cert.commonName, groups: [...cert.organizations] }, reused: true }));
      return answer;
    },
  };
}
