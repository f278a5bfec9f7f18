// Generating a certificate authority and leaf certificates (serving, client) with WebCrypto
// keys. Loaded on demand: only the first start of a data dir needs it.
import "reflect-metadata"; // @peculiar/x509 uses tsyringe, which needs it loaded first
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import { encodePem, pemBlocks, pemBytes } from "../apimachinery/pem.js";

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const tenYears = 10 * 365 * 24 * 3600 * 1000;

import type { KeyPairPem } from "./cert-files.js";

export type { KeyPairPem };

async function exportKey(key: CryptoKey): Promise<string> {
  return encodePem("PRIVATE KEY", await webcrypto.subtle.exportKey("pkcs8", key as webcrypto.CryptoKey));
}

async function importKey(keyPem: string): Promise<CryptoKey> {
  const der = pemBytes(pemBlocks(keyPem)[0]!);
  return (await webcrypto.subtle.importKey("pkcs8", der, alg, true, ["sign"])) as unknown as CryptoKey;
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString("hex").replace(/^[89a-f]/, "1");
}

function escapeDn(v: string): string {
  return v.replace(/([,+"\\<>;=])/g, "\\$1");
}

export async function createCA(commonName: string): Promise<KeyPairPem> {
  const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as unknown as CryptoKeyPair;
  const now = new Date(Date.now() - 60_000);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${escapeDn(commonName)}`,
    notBefore: now,
    notAfter: new Date(now.getTime() + tenYears),
    keys,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString("pem") + "\n", keyPem: await exportKey(keys.privateKey) };
}

export interface LeafOptions {
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ips?: string[];
  usage: "server" | "client";
}

export async function createLeaf(ca: KeyPairPem, opts: LeafOptions): Promise<KeyPairPem> {
  const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as unknown as CryptoKeyPair;
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await importKey(ca.keyPem);
  const now = new Date(Date.now() - 60_000);
  const subject = [`CN=${escapeDn(opts.commonName)}`, ...(opts.organizations ?? []).map((o) => `O=${escapeDn(o)}`)].join(", ");
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([opts.usage === "server" ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
    await x509.AuthorityKeyIdentifierExtension.create(caCert),
  ];
  if (opts.usage === "server") {
    const names: x509.JsonGeneralName[] = [
      ...(opts.dnsNames ?? []).map((value) => ({ type: "dns" as const, value })),
      ...(opts.ips ?? []).map((value) => ({ type: "ip" as const, value })),
    ];
    extensions.push(new x509.SubjectAlternativeNameExtension(names));
  }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject,
    issuer: caCert.subject,
    notBefore: now,
    notAfter: new Date(now.getTime() + tenYears),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: alg,
    extensions,
  });
  return { certPem: cert.toString("pem") + "\n", keyPem: await exportKey(keys.privateKey) };
}

