// The encrypting providers, with upstream's byte layouts (kept as base64 text, see transformer.ts): AES-CBC (16-byte IV, PKCS#7 padding),
// AES-GCM (12-byte nonce, tag appended, the storage key as authenticated data) and NaCl secretbox
// (24-byte nonce, XSalsa20-Poly1305). AES is node:crypto's; secretbox is @noble/ciphers' (Node
// has no XSalsa20).
import { createCipheriv, createDecipheriv, randomBytes, type CipherGCM, type DecipherGCM } from "node:crypto";
import { lazyPackage } from "../../apimachinery/package-files.js";
import { TransformError, type FromStorage, type ValueTransformer } from "./transformer.js";

/** A cipher over bytes: plaintext is the value's UTF-8, ciphertext travels as base64. */
interface ByteCipher {
  open(data: Buffer, key: string): Buffer;
  seal(data: Buffer, key: string): Buffer;
}

function asText(c: ByteCipher): ValueTransformer {
  return {
    fromStorage: (data, key): FromStorage => ({ data: c.open(Buffer.from(data, "base64"), key).toString("utf8"), stale: false }),
    toStorage: (data, key) => c.seal(Buffer.from(data, "utf8"), key).toString("base64"),
  };
}

const cbcAlgorithms: Record<number, string> = { 16: "aes-128-cbc", 24: "aes-192-cbc", 32: "aes-256-cbc" };
const gcmAlgorithms: Record<number, string> = { 16: "aes-128-gcm", 24: "aes-192-gcm", 32: "aes-256-gcm" };
const shortData = "the stored data was shorter than the required size";

export function aesCbcTransformer(key: Buffer): ValueTransformer {
  const algorithm = cbcAlgorithms[key.length]!;
  return asText({
    open(data) {
      if (data.length < 16) throw new TransformError(shortData);
      const body = data.subarray(16);
      if (body.length % 16 !== 0) throw new TransformError("the stored data is not a multiple of the block size");
      const d = createDecipheriv(algorithm, key, data.subarray(0, 16));
      // Padding is checked here, in upstream's words, rather than by OpenSSL.
      d.setAutoPadding(false);
      const plain = Buffer.concat([d.update(body), d.final()]);
      const pad = plain.length > 0 ? plain[plain.length - 1]! : 0;
      if (pad === 0 || pad > plain.length) throw new TransformError("invalid PKCS7 data (empty or not padded)");
      for (let i = plain.length - pad; i < plain.length; i++) {
        if (plain[i] !== pad) throw new TransformError("invalid padding on input");
      }
      return plain.subarray(0, plain.length - pad);
    },
    seal(data) {
      const iv = randomBytes(16);
      const c = createCipheriv(algorithm, key, iv);
      return Buffer.concat([iv, c.update(data), c.final()]);
    },
  });
}

export function aesGcmTransformer(key: Buffer): ValueTransformer {
  const algorithm = gcmAlgorithms[key.length]!;
  return asText({
    open(data, storageKey) {
      if (data.length < 12) throw new TransformError(shortData);
      if (data.length < 12 + 16) throw new TransformError("cipher: message authentication failed");
      const d = createDecipheriv(algorithm, key, data.subarray(0, 12)) as DecipherGCM;
      d.setAAD(Buffer.from(storageKey, "utf8"));
      d.setAuthTag(data.subarray(data.length - 16));
      try {
        return Buffer.concat([d.update(data.subarray(12, data.length - 16)), d.final()]);
      } catch {
        // Go's crypto/cipher message for a wrong key, nonce, tag or authenticated data.
        throw new TransformError("cipher: message authentication failed");
      }
    },
    seal(data, storageKey) {
      const nonce = randomBytes(12);
      const c = createCipheriv(algorithm, key, nonce) as CipherGCM;
      c.setAAD(Buffer.from(storageKey, "utf8"));
      const body = Buffer.concat([c.update(data), c.final()]);
      return Buffer.concat([nonce, body, c.getAuthTag()]);
    },
  });
}

// Loaded when a secretbox provider is configured: start-up time is a feature (package-files.ts).
const salsa = lazyPackage<typeof import("@noble/ciphers/salsa")>("@noble/ciphers/salsa");
const secretboxNonce = 24;
const secretboxOverhead = 16;

export function secretboxTransformer(key: Buffer): ValueTransformer {
  const k = new Uint8Array(key);
  return asText({
    open(data) {
      if (data.length < secretboxOverhead + secretboxNonce) throw new TransformError(shortData);
      try {
        const plain = salsa().xsalsa20poly1305(k, new Uint8Array(data.subarray(0, secretboxNonce))).decrypt(new Uint8Array(data.subarray(secretboxNonce)));
        return Buffer.from(plain);
      } catch {
        // Upstream's (misleading) words for a box that does not open.
        throw new TransformError("output array was not large enough for encryption");
      }
    },
    seal(data) {
      const nonce = randomBytes(secretboxNonce);
      const sealed = salsa().xsalsa20poly1305(k, new Uint8Array(nonce)).encrypt(new Uint8Array(data));
      return Buffer.concat([nonce, Buffer.from(sealed)]);
    },
  });
}
