// Keys in PEM files as kube-apiserver reads them for service accounts: a file may hold several
// public keys, certificates or private keys (RSA or EC, PKCS#1, PKCS#8, SEC1); a private key
// stands for its public half when verifying.
import { X509Certificate, createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { pemBlocks } from "../../apimachinery/pem.js";

/** Every key of a PEM text as public KeyObjects; an error names the file and the block. */
export function publicKeysFromPem(text: string, file: string): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const { type: label, text: block } of pemBlocks(text)) {
    try {
      if (label === "CERTIFICATE") keys.push(new X509Certificate(block).publicKey);
      else if (label.endsWith("PRIVATE KEY")) keys.push(createPublicKey(createPrivateKey(block)));
      else if (label.endsWith("PUBLIC KEY")) keys.push(createPublicKey(block));
    } catch (e) {
      throw new Error(`${file}: error reading ${label}: ${(e as Error).message}`);
    }
  }
  const usable = keys.filter((k) => k.asymmetricKeyType === "rsa" || k.asymmetricKeyType === "ec");
  if (usable.length === 0) throw new Error(`${file}: data does not contain any valid RSA or ECDSA public keys`);
  return usable;
}

/** The one private key of a signing key file (RSA or EC). */
export function privateKeyFromPem(text: string, file: string): KeyObject {
  for (const { type: label, text: block } of pemBlocks(text)) {
    if (!label.endsWith("PRIVATE KEY")) continue;
    let key: KeyObject;
    try {
      key = createPrivateKey(block);
    } catch (e) {
      throw new Error(`${file}: error reading private key: ${(e as Error).message}`);
    }
    if (key.asymmetricKeyType !== "rsa" && key.asymmetricKeyType !== "ec") throw new Error(`${file}: unsupported private key type ${key.asymmetricKeyType}`);
    return key;
  }
  throw new Error(`${file}: data does not contain a valid RSA or ECDSA private key`);
}

export const readPublicKeys = (file: string): KeyObject[] => publicKeysFromPem(readFileSync(file, "utf8"), file);
export const readPrivateKey = (file: string): KeyObject => privateKeyFromPem(readFileSync(file, "utf8"), file);
