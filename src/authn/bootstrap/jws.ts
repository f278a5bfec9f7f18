// The detached JWS the bootstrap signer puts in cluster-info (RFC 7515 appendix F): a compact
// HS256 JWS over the content with the payload part left empty, `<header>..<signature>`. The
// protected header is {"alg":"HS256","kid":"<token id>"}; the HMAC key is the token secret, as
// upstream's signer and kubeadm's verifier use it (keys shorter than HMAC-SHA256's block are
// zero-padded by HMAC itself, so upstream's padding to 32 bytes changes nothing).
import { createHmac, timingSafeEqual } from "node:crypto";

const b64url = (b: Buffer | string) => Buffer.from(b).toString("base64url"); // no "=" padding

export function computeDetachedSignature(content: string, tokenId: string, tokenSecret: string): string {
  const header = b64url(JSON.stringify({ alg: "HS256", kid: tokenId }));
  const payload = b64url(content);
  const signature = createHmac("sha256", Buffer.from(tokenSecret, "utf8")).update(`${header}.${payload}`).digest("base64url");
  return `${header}..${signature}`;
}

/** Whether `detached` is the signature of `content` by the token (what a joining node checks). */
export function detachedTokenIsValid(detached: string, content: string, tokenId: string, tokenSecret: string): boolean {
  const want = Buffer.from(computeDetachedSignature(content, tokenId, tokenSecret));
  const got = Buffer.from(detached);
  return got.length === want.length && timingSafeEqual(got, want);
}
