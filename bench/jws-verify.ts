// Parse + signature check of one service-account-style token per call, for RS256 (2048-bit RSA)
// and ES256: what an uncached token authentication costs. One at a time (the latency one request
// sees), then 64 in flight (a server's throughput: jose checks signatures with WebCrypto, which
// runs them off the main thread). `npx tsx bench/jws-verify.ts`
import { generateKeyPairSync } from "node:crypto";
import { parseJws, signJws, verifyJws } from "../src/authn/jwt/jws.js";

const pairs = [
  ["RS256 (2048)", generateKeyPairSync("rsa", { modulusLength: 2048 })],
  ["ES256", generateKeyPairSync("ec", { namedCurve: "prime256v1" })],
] as const;

const n = 5000;
const inFlight = 64;
const rate = (t0: number) => Math.round(n / ((performance.now() - t0) / 1000)).toLocaleString("en");

for (const [name, pair] of pairs) {
  const token = signJws({ iss: "x", sub: "system:serviceaccount:a:b", aud: ["x"], exp: 2e9 }, pair.privateKey);
  const check = async () => {
    if (!(await verifyJws(parseJws(token), pair.publicKey))) throw new Error("signature did not verify");
  };
  for (let i = 0; i < 500; i++) await check();
  let t0 = performance.now();
  for (let i = 0; i < n; i++) await check();
  const oneAtATime = rate(t0);
  t0 = performance.now();
  for (let i = 0; i < n; i += inFlight) await Promise.all(Array.from({ length: inFlight }, check));
  console.log(`${name}: ${oneAtATime} parse+verify/s one at a time, ${rate(t0)} parse+verify/s ${inFlight} in flight`);
}
