// Test certificates beyond what start-up generates: any validity window, intermediates, no or
// other extended key usages, RSA keys. For the x509, request header and webhook tests only.
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";
import type { KeyPairPem } from "./cert-files.js";

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ec = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const rsa = { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" } as const;
const day = 24 * 3600 * 1000;

export interface TestCert extends KeyPairPem {
  keys: CryptoKeyPair;
  cert: x509.X509Certificate;
  alg: typeof ec | typeof rsa;
}

export interface CertOptions {
  commonName: string;
  organizations?: string[];
  /** Signed by this CA; self-signed without. */
  issuer?: TestCert;
  ca?: boolean;
  /** "client" (default for leaves), "server", "none" (no extended key usage extension), or OIDs. */
  usage?: "client" | "server" | "none" | string[];
  notBefore?: Date;
  notAfter?: Date;
  dnsNames?: string[];
  ips?: string[];
  rsa?: boolean;
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString("base64").replace(/(.{64})/g, "$1\n").replace(/\n$/, "");
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

const esc = (v: string) => v.replace(/([,+"\\<>;=])/g, "\\$1");

export async function makeCert(o: CertOptions): Promise<TestCert> {
  const alg = o.rsa ? rsa : ec;
  const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as unknown as CryptoKeyPair;
  const name = [`CN=${esc(o.commonName)}`, ...(o.organizations ?? []).map((g) => `O=${esc(g)}`)].join(", ");
  const notBefore = o.notBefore ?? new Date(Date.now() - 60_000);
  const notAfter = o.notAfter ?? new Date(Date.now() + 365 * day);
  const isCA = o.ca ?? !o.issuer;
  const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(isCA, undefined, true), await x509.SubjectKeyIdentifierExtension.create(keys.publicKey)];
  if (isCA) extensions.push(new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true));
  else extensions.push(new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true));
  const usage = o.usage ?? (isCA ? "none" : "client");
  if (usage !== "none") {
    const oids = usage === "client" ? [x509.ExtendedKeyUsage.clientAuth] : usage === "server" ? [x509.ExtendedKeyUsage.serverAuth] : usage;
    extensions.push(new x509.ExtendedKeyUsageExtension(oids));
  }
  if (o.dnsNames || o.ips) {
    extensions.push(
      new x509.SubjectAlternativeNameExtension([...(o.dnsNames ?? []).map((value) => ({ type: "dns" as const, value })), ...(o.ips ?? []).map((value) => ({ type: "ip" as const, value }))]),
    );
  }
  if (o.issuer) extensions.push(await x509.AuthorityKeyIdentifierExtension.create(o.issuer.cert));
  const serialNumber = Buffer.from(webcrypto.getRandomValues(new Uint8Array(12))).toString("hex").replace(/^[89a-f]/, "1");
  const cert = o.issuer
    ? await x509.X509CertificateGenerator.create({
        serialNumber,
        subject: name,
        issuer: o.issuer.cert.subject,
        notBefore,
        notAfter,
        publicKey: keys.publicKey,
        signingKey: o.issuer.keys.privateKey,
        signingAlgorithm: o.issuer.alg,
        extensions,
      })
    : await x509.X509CertificateGenerator.createSelfSigned({ serialNumber, name, notBefore, notAfter, keys, signingAlgorithm: alg, extensions });
  const keyPem = pem("PRIVATE KEY", await webcrypto.subtle.exportKey("pkcs8", keys.privateKey as webcrypto.CryptoKey));
  return { keys, cert, alg, certPem: cert.toString("pem") + "\n", keyPem };
}

export const daysFromNow = (n: number) => new Date(Date.now() + n * day);
