// Parse + signature check of one service-account-style token per call, for RS256 (2048-bit RSA)
// and ES256: what an uncached token authentication costs. `npx tsx bench/jws-verify.ts`
import { generateKeyPairSync } from "node:crypto";
import { parseJws, signJws, verifyJws } from "../src/authn/jwt/jws.js";

const pairs = [
  ["RS256 (2048)", generateKeyPairSync("rsa", { modulusLength: 2048 })],
  ["ES256", generateKeyPairSync("ec", { namedCurve: "prime256v1" })],
] as const;

for (const [name, pair] of pairs) {
  const token = signJws({ iss: "x", sub: "system:serviceaccount:a:b", aud: ["x"], exp: 2e9 }, pair.privateKey);
  for (let i = 0; i < 500; i++) verifyJws(parseJws(token), pair.publicKey);
  const n = 5000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) if (!verifyJws(parseJws(token), pair.publicKey)) throw new Error("signature did not verify");
  console.log(`${name}: ${Math.round(n / ((performance.now() - t0) / 1000)).toLocaleString("en")} parse+verify/s`);
}
