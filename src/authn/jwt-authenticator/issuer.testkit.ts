// A loopback OpenID provider for tests: HTTPS with its own CA, the discovery document, a JWKS
// of RSA and EC keys, and tokens signed with them (or with anything a test wants to try).
import { generateKeyPairSync, sign as cryptoSign, type KeyObject } from "node:crypto";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { createCA, createLeaf } from "../certs.js";
import { signJws } from "../jwt/jws.js";

export interface IssuerKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export interface TestIssuer {
  /** `https://127.0.0.1:<port><path>` */
  url: string;
  caPem: string;
  keys: { rsa: IssuerKey; ec: IssuerKey };
  /** Keys currently published in the JWKS. */
  published: IssuerKey[];
  /** Requests served per path. */
  hits: Map<string, number>;
  /** Signs claims (iss, aud, exp filled unless given) with a key (RSA by default). */
  token(claims?: Record<string, unknown>, o?: { key?: IssuerKey; header?: Record<string, unknown> }): string;
  /** A compact JWS over any header and claims, signed raw with the given key and hash. */
  rawToken(header: Record<string, unknown>, claims: Record<string, unknown>, key: KeyObject, hash?: string): string;
  newKey(kind: "rsa" | "ec", kid: string): IssuerKey;
  /** The issuer value the discovery document announces (defaults to url). */
  announcedIssuer?: string;
  close(): Promise<void>;
}

export function makeKey(kind: "rsa" | "ec", kid: string): IssuerKey {
  const pair = kind === "rsa" ? generateKeyPairSync("rsa", { modulusLength: 2048 }) : generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  return { kid, privateKey: pair.privateKey, publicKey: pair.publicKey };
}

export async function startTestIssuer(o: { path?: string; audience?: string; discoveryPath?: string } = {}): Promise<TestIssuer> {
  const ca = await createCA("test-oidc-ca");
  const leaf = await createLeaf(ca, { commonName: "127.0.0.1", dnsNames: ["localhost"], ips: ["127.0.0.1"], usage: "server" });
  const path = o.path ?? "";
  const rsa = makeKey("rsa", "rsa-1");
  const ec = makeKey("ec", "ec-1");
  const hits = new Map<string, number>();
  let issuer!: TestIssuer;
  const server: Server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    const p = (req.url ?? "").split("?")[0]!;
    hits.set(p, (hits.get(p) ?? 0) + 1);
    const json = (body: unknown) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (p === `${path}/.well-known/openid-configuration` || (o.discoveryPath && p === o.discoveryPath)) {
      return json({ issuer: issuer.announcedIssuer ?? issuer.url, jwks_uri: `${issuer.url}/jwks`, id_token_signing_alg_values_supported: ["RS256", "ES256"] });
    }
    if (p === `${path}/jwks`) {
      return json({ keys: issuer.published.map((k) => ({ ...(k.publicKey.export({ format: "jwk" }) as object), kid: k.kid, use: "sig" })) });
    }
    res.writeHead(404);
    res.end("not found");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  const url = `https://127.0.0.1:${port}${path}`;
  issuer = {
    url,
    caPem: ca.certPem,
    keys: { rsa, ec },
    published: [rsa, ec],
    hits,
    token(claims = {}, t = {}) {
      const key = t.key ?? rsa;
      const now = Math.floor(Date.now() / 1000);
      return signJws({ iss: url, aud: o.audience ?? "kapi", exp: now + 600, iat: now, ...claims }, key.privateKey, { kid: key.kid, ...t.header });
    },
    rawToken(header, claims, key, hash = "sha256") {
      const h = Buffer.from(JSON.stringify(header)).toString("base64url");
      const p = Buffer.from(JSON.stringify(claims)).toString("base64url");
      const sig = key.asymmetricKeyType === "ec" ? cryptoSign(hash, Buffer.from(`${h}.${p}`), { key, dsaEncoding: "ieee-p1363" }) : cryptoSign(hash, Buffer.from(`${h}.${p}`), key);
      return `${h}.${p}.${sig.toString("base64url")}`;
    },
    newKey: makeKey,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return issuer;
}
