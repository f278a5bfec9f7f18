// PKCS#10 requests for tests: spec.request as a client sends it (base64 of the PEM text).
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ec = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

export async function csrRequest(commonName: string, organizations: string[] = []): Promise<{ request: string; keyPem: string }> {
  const keys = (await webcrypto.subtle.generateKey(ec, true, ["sign", "verify"])) as unknown as CryptoKeyPair;
  const name = [`CN=${commonName}`, ...organizations.map((o) => `O=${o}`)].join(", ");
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name, keys, signingAlgorithm: ec });
  const der = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey as webcrypto.CryptoKey);
  const b64 = Buffer.from(der).toString("base64").replace(/(.{64})/g, "$1\n").replace(/\n$/, "");
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`;
  return { request: Buffer.from(csr.toString("pem") + "\n").toString("base64"), keyPem };
}
