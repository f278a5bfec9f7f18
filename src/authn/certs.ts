// Certificate authority and leaf certificates for a self-contained server: a serving CA and
// serving certificate, a client CA and the admin client certificate. Generated once into the
// certificate directory and reused on later starts.
import "reflect-metadata"; // @peculiar/x509 uses tsyringe, which needs it loaded first
import { webcrypto, X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const tenYears = 10 * 365 * 24 * 3600 * 1000;

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString("base64").replace(/(.{64})/g, "$1\n").replace(/\n$/, "");
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

async function exportKey(key: CryptoKey): Promise<string> {
  return pem("PRIVATE KEY", await webcrypto.subtle.exportKey("pkcs8", key as webcrypto.CryptoKey));
}

async function importKey(keyPem: string): Promise<CryptoKey> {
  const der = Buffer.from(keyPem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, ""), "base64");
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

function readPair(dir: string, base: string): KeyPairPem | undefined {
  const c = join(dir, `${base}.crt`);
  const k = join(dir, `${base}.key`);
  if (!existsSync(c) || !existsSync(k)) return undefined;
  return { certPem: readFileSync(c, "utf8"), keyPem: readFileSync(k, "utf8") };
}

export function writePair(dir: string, base: string, pair: KeyPairPem): void {
  writeFileSync(join(dir, `${base}.crt`), pair.certPem, { mode: 0o644 });
  writeFileSync(join(dir, `${base}.key`), pair.keyPem, { mode: 0o600 });
}

/** Reuse `<dir>/<base>.{crt,key}` or create it with `make`. */
export async function loadOrCreate(dir: string, base: string, make: () => Promise<KeyPairPem>): Promise<KeyPairPem> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const existing = readPair(dir, base);
  if (existing) return existing;
  const pair = await make();
  writePair(dir, base, pair);
  return pair;
}

/** Does the existing serving certificate cover every wanted host? */
export function coversHosts(certPem: string, hosts: string[]): boolean {
  const cert = new X509Certificate(certPem);
  const san = cert.subjectAltName ?? "";
  return hosts.every((h) => (isIP(h) ? san.includes(`IP Address:${h === "::1" ? "0:0:0:0:0:0:0:1" : h}`) || san.includes(`IP Address:${h}`) : san.includes(`DNS:${h}`)));
}

export function splitHosts(hosts: string[]): { dnsNames: string[]; ips: string[] } {
  const dnsNames: string[] = [];
  const ips: string[] = [];
  for (const h of new Set(hosts)) {
    if (!h || h === "0.0.0.0" || h === "::") continue;
    (isIP(h) ? ips : dnsNames).push(h);
  }
  return { dnsNames, ips };
}
