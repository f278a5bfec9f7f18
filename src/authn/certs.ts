// The certificates kapi makes for itself: a self-signed CA, a serving certificate with SANs, a
// client certificate whose O and CN name a user's groups and name. Keys and signatures come from
// node:crypto; the certificate around them is built here (./der.ts) as RFC 5280 lays it out, with
// the extensions Go's crypto/x509 checks (key usages, extended key usage, basic constraints, key
// identifiers that tie a leaf to its CA).
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from "node:crypto";
import { parseAddr } from "../apimachinery/ip-address.js";
import { encodePem, pemBlocks, pemBytes } from "../apimachinery/pem.js";
import type { KeyPairPem } from "./cert-files.js";
import * as der from "./der.js";

export type { KeyPairPem };

const tenYears = 10 * 365 * 24 * 3600 * 1000;

const oid = {
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  sha256WithRsa: "1.2.840.113549.1.1.11",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  subjectKeyId: "2.5.29.14",
  authorityKeyId: "2.5.29.35",
  subjectAltName: "2.5.29.17",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
};

// RFC 5280 4.2.1.3's bit numbers.
const keyUsageBit = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5, cRLSign: 6 };

export interface LeafOptions {
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ips?: string[];
  usage: "server" | "client";
}

function newKeyPair(): { publicKey: KeyObject; privateKey: KeyObject } {
  return generateKeyPairSync("ec", { namedCurve: "P-256" });
}

function privateKeyPem(key: KeyObject): string {
  return encodePem("PRIVATE KEY", key.export({ type: "pkcs8", format: "der" }));
}

/** A distinguished name: one attribute per RDN, in the order given. */
function name(attrs: readonly [type: string, value: string][]): Buffer {
  return der.sequence(...attrs.map(([type, value]) => der.set(der.sequence(der.objectIdentifier(type), der.utf8String(value)))));
}

/** RFC 5280 4.2.1.2 method 1: SHA-1 of the subjectPublicKey BIT STRING's bytes. */
function keyIdentifier(publicKey: KeyObject): Buffer {
  const [spki] = der.readElements(publicKey.export({ type: "spki", format: "der" }));
  const bits = der.readElements(spki!.contents)[1]!;
  return createHash("sha1").update(bits.contents.subarray(1)).digest();
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return der.sequence(der.objectIdentifier(id), ...(critical ? [der.boolean(true)] : []), der.octetString(value));
}

/** A positive 127-bit serial (RFC 5280 allows up to 20 octets; the top bit clear keeps it positive). */
function serialNumber(): Buffer {
  const b = randomBytes(16);
  b[0] = (b[0]! & 0x7f) | 0x01;
  return der.unsignedInteger(b);
}

function signatureAlgorithm(key: KeyObject): { id: Buffer; digest: string } {
  switch (key.asymmetricKeyType) {
    case "ec":
      return { id: der.sequence(der.objectIdentifier(oid.ecdsaWithSha256)), digest: "sha256" };
    case "rsa":
      return { id: der.sequence(der.objectIdentifier(oid.sha256WithRsa), der.nullValue()), digest: "sha256" };
    default:
      throw new Error(`kapi: cannot sign certificates with a ${key.asymmetricKeyType} CA key (EC or RSA only)`);
  }
}

interface Draft {
  issuer: Buffer;
  subject: Buffer;
  publicKey: KeyObject;
  extensions: Buffer[];
  signingKey: KeyObject;
}

function certificatePem(d: Draft): string {
  const alg = signatureAlgorithm(d.signingKey);
  const notBefore = new Date(Date.now() - 60_000);
  const tbs = der.sequence(
    der.explicit(0, der.smallInteger(2)), // v3
    serialNumber(),
    alg.id,
    d.issuer,
    der.sequence(der.time(notBefore), der.time(new Date(notBefore.getTime() + tenYears))),
    d.subject,
    d.publicKey.export({ type: "spki", format: "der" }),
    der.explicit(3, der.sequence(...d.extensions)),
  );
  const signature = sign(alg.digest, tbs, d.signingKey);
  return encodePem("CERTIFICATE", der.sequence(tbs, alg.id, der.bitString(signature))) + "\n";
}

export async function createCA(commonName: string): Promise<KeyPairPem> {
  const keys = newKeyPair();
  const subject = name([[oid.commonName, commonName]]);
  const certPem = certificatePem({
    issuer: subject,
    subject,
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
    extensions: [
      extension(oid.basicConstraints, true, der.sequence(der.boolean(true))),
      extension(oid.keyUsage, true, der.namedBits([keyUsageBit.digitalSignature, keyUsageBit.keyCertSign, keyUsageBit.cRLSign])),
      extension(oid.subjectKeyId, false, der.octetString(keyIdentifier(keys.publicKey))),
    ],
  });
  return { certPem, keyPem: privateKeyPem(keys.privateKey) };
}

/** The subject name of a certificate, as its bytes: a leaf's issuer must be exactly that. */
function subjectOf(certPem: string): Buffer {
  const [cert] = der.readElements(pemBytes(pemBlocks(certPem)[0]!));
  const [tbs] = der.readElements(cert!.contents);
  const fields = der.readElements(tbs!.contents);
  // version [0] (present in v3), serial, signature algorithm, issuer, validity, subject
  const at = fields[0]!.tag === 0xa0 ? 5 : 4;
  return fields[at]!.whole;
}

export async function createLeaf(ca: KeyPairPem, opts: LeafOptions): Promise<KeyPairPem> {
  const keys = newKeyPair();
  const caCert = new X509Certificate(ca.certPem);
  const subject = name([[oid.commonName, opts.commonName], ...(opts.organizations ?? []).map((o): [string, string] => [oid.organization, o])]);
  const extensions = [
    extension(oid.basicConstraints, true, der.sequence()),
    extension(oid.keyUsage, true, der.namedBits([keyUsageBit.digitalSignature, keyUsageBit.keyEncipherment])),
    extension(oid.extKeyUsage, false, der.sequence(der.objectIdentifier(opts.usage === "server" ? oid.serverAuth : oid.clientAuth))),
    extension(oid.authorityKeyId, false, der.sequence(der.implicit(0, keyIdentifier(caCert.publicKey)))),
  ];
  if (opts.usage === "server") {
    const names = [...(opts.dnsNames ?? []).map((n) => der.implicit(2, Buffer.from(n, "ascii"))), ...(opts.ips ?? []).map((ip) => der.implicit(7, Buffer.from(parseAddr(ip).bytes)))];
    extensions.push(extension(oid.subjectAltName, false, der.sequence(...names)));
  }
  const certPem = certificatePem({ issuer: subjectOf(ca.certPem), subject, publicKey: keys.publicKey, signingKey: createPrivateKey(ca.keyPem), extensions });
  return { certPem, keyPem: privateKeyPem(keys.privateKey) };
}
