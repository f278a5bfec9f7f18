// The service-account authenticator through the shared conformance suite, over an in-memory
// object getter: bound (unbound, pod, secret, node) and legacy tokens, and every way to be invalid.
import { createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { describe, expect, it } from "vitest";
import { authenticatorConformance } from "../conformance.testkit.js";
import type { AuthnRequest } from "../authenticator.js";
import { signJws } from "../jwt/jws.js";
import type { KObject } from "../../apimachinery/object.js";
import { serviceAccountAuthenticator } from "./authenticator.js";
import { boundTokenClaims, legacyTokenClaims } from "./claims.js";
import type { TokenObjectGetter } from "./getter.js";
import { legacyToken, tokenSigner } from "./token-signer.js";

const issuer = "https://kubernetes.default.svc.cluster.local";
const { privateKey: ecKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
const { privateKey: rsaKey, publicKey: rsaPub } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const { privateKey: foreignKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
const ecPub = createPublicKey(ecKey);

const sa = { namespace: "ns", name: "robot", uid: "sa-uid" };
const objects = new Map<string, KObject>();
const put = (kind: string, ns: string, name: string, uid: string, extra: Partial<KObject> = {}) =>
  objects.set(`${kind}/${ns}/${name}`, { metadata: { name, namespace: ns || undefined, uid, ...(extra.metadata ?? {}) }, ...extra } as KObject);
const getter: TokenObjectGetter = {
  serviceAccount: async (ns, name) => objects.get(`sa/${ns}/${name}`),
  serviceAccountWithSecrets: async (ns, name) => objects.get(`sa/${ns}/${name}`),
  pod: async (ns, name) => objects.get(`pod/${ns}/${name}`),
  node: async (name) => objects.get(`node//${name}`),
  secret: async (ns, name) => objects.get(`secret/${ns}/${name}`),
};

function reset() {
  objects.clear();
  put("sa", "ns", "robot", "sa-uid");
  put("pod", "ns", "p", "pod-uid", { spec: { nodeName: "n1" } } as Partial<KObject>);
  put("pod", "ns", "doomed", "doomed-uid", { metadata: { name: "doomed", deletionTimestamp: new Date(Date.now() - 120_000).toISOString() } } as Partial<KObject>);
  put("node", "", "n1", "node-uid");
  put("secret", "ns", "s", "secret-uid");
  put("sa", "ns", "renamed", "new-uid");
}

const sign = tokenSigner(ecKey);
const bearer = (token: string): AuthnRequest => ({ path: "/", headers: { authorization: `Bearer ${token}` } });
const bound = (over: Partial<Parameters<typeof boundTokenClaims>[0]> = {}, mutate?: (c: Record<string, unknown>) => void) => {
  const c = boundTokenClaims({ serviceAccount: sa, expirationSeconds: 3600, audiences: [issuer], issuer, ...over });
  mutate?.(c);
  return c;
};
const tokenOf = (claims: Record<string, unknown>, key: KeyObject = ecKey) => tokenSigner(key)(claims);
const legacySecretToken = legacyToken(ecKey, sa, "legacy-secret");
const b64 = (s: string) => Buffer.from(s).toString("base64");

const group = ["system:serviceaccounts", "system:serviceaccounts:ns"];
const make = () => {
  reset();
  put("secret", "ns", "legacy-secret", "ls-uid", { data: { token: b64(legacySecretToken) } } as Partial<KObject>);
  return serviceAccountAuthenticator({ issuers: [issuer, "https://old.example"], publicKeys: [rsaPub, ecPub], apiAudiences: [issuer], lookup: true, getter });
};

const jtiOf = (t: string) => JSON.parse(Buffer.from(t.split(".")[1], "base64url").toString()).jti as string;
const unbound = tokenOf(bound());
const podBound = tokenOf(bound({ pod: { name: "p", uid: "pod-uid" }, node: { name: "n1", uid: "node-uid" } }));
const secretBound = tokenOf(bound({ secret: { name: "s", uid: "secret-uid" } }));
const nodeBound = tokenOf(bound({ node: { name: "n1", uid: "node-uid" } }));
const rsaSigned = tokenOf(bound(), rsaKey);
const secondIssuer = tokenOf(bound({ issuer: "https://old.example" }));
const cred = (t: string) => ({ "authentication.kubernetes.io/credential-id": [`JTI=${jtiOf(t)}`] });

function tamper(t: string): string {
  const [h, p, s] = t.split(".");
  const c = JSON.parse(Buffer.from(p, "base64url").toString());
  c["kubernetes.io"].serviceaccount.name = "admin";
  return `${h}.${Buffer.from(JSON.stringify(c)).toString("base64url")}.${s}`;
}
const algNone = () => {
  const h = Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url");
  const p = Buffer.from(JSON.stringify(bound())).toString("base64url");
  return `${h}.${p}.`;
};

authenticatorConformance({
  method: "service-account",
  make,
  valid: [
    { title: "unbound token", request: bearer(unbound), user: { name: "system:serviceaccount:ns:robot", uid: "sa-uid", groups: group, extra: cred(unbound) } },
    {
      title: "pod-bound token (with its node)",
      request: bearer(podBound),
      user: {
        name: "system:serviceaccount:ns:robot",
        uid: "sa-uid",
        groups: group,
        extra: {
          "authentication.kubernetes.io/pod-name": ["p"],
          "authentication.kubernetes.io/pod-uid": ["pod-uid"],
          ...cred(podBound),
          "authentication.kubernetes.io/node-name": ["n1"],
          "authentication.kubernetes.io/node-uid": ["node-uid"],
        },
      },
    },
    { title: "secret-bound token", request: bearer(secretBound), user: { name: "system:serviceaccount:ns:robot", uid: "sa-uid", groups: group, extra: cred(secretBound) } },
    {
      title: "node-bound token",
      request: bearer(nodeBound),
      user: { name: "system:serviceaccount:ns:robot", uid: "sa-uid", groups: group, extra: { ...cred(nodeBound), "authentication.kubernetes.io/node-name": ["n1"], "authentication.kubernetes.io/node-uid": ["node-uid"] } },
    },
    { title: "RSA key from --service-account-key-file", request: bearer(rsaSigned), user: { name: "system:serviceaccount:ns:robot", uid: "sa-uid", groups: group, extra: cred(rsaSigned) } },
    { title: "a second configured issuer", request: bearer(secondIssuer), user: { name: "system:serviceaccount:ns:robot", uid: "sa-uid", groups: group, extra: cred(secondIssuer) } },
    { title: "legacy Secret token", request: bearer(legacySecretToken), user: { name: "system:serviceaccount:ns:robot", uid: "sa-uid", groups: group } },
  ],
  invalid: [
    { title: "expired", request: bearer(tokenOf(bound({ now: Math.floor(Date.now() / 1000) - 7200 }))) },
    { title: "not valid yet", request: bearer(tokenOf(bound({ now: Math.floor(Date.now() / 1000) + 600 }))) },
    { title: "wrong audience", request: bearer(tokenOf(bound({ audiences: ["elsewhere"] }))) },
    { title: "tampered payload", request: bearer(tamper(unbound)) },
    { title: "alg none", request: bearer(algNone()) },
    { title: "unknown key", request: bearer(tokenOf(bound(), foreignKey)) },
    { title: "deleted ServiceAccount", request: bearer(tokenOf(bound({ serviceAccount: { ...sa, name: "gone" } }))) },
    { title: "ServiceAccount uid mismatch", request: bearer(tokenOf(bound({ serviceAccount: { ...sa, name: "renamed", uid: "old-uid" } }))) },
    { title: "bound pod deleted", request: bearer(tokenOf(bound({ pod: { name: "nope", uid: "x" } }))) },
    { title: "bound pod terminating past the leeway", request: bearer(tokenOf(bound({ pod: { name: "doomed", uid: "doomed-uid" } }))) },
    { title: "bound pod uid mismatch", request: bearer(tokenOf(bound({ pod: { name: "p", uid: "other" } }))) },
    { title: "bound secret gone", request: bearer(tokenOf(bound({ secret: { name: "nope", uid: "x" } }))) },
    { title: "bound node uid mismatch", request: bearer(tokenOf(bound({ node: { name: "n1", uid: "other" } }))) },
    { title: "legacy token not matching the Secret", request: bearer(legacyToken(ecKey, sa, "s")) },
    { title: "legacy token of a missing Secret", request: bearer(legacyToken(ecKey, sa, "missing")) },
    { title: "legacy token with a bad sub", request: bearer(sign({ ...legacyTokenClaims(sa, "legacy-secret"), sub: "system:serviceaccount:other:robot" })) },
    { title: "malformed signature segment", request: bearer(`${unbound.split(".").slice(0, 2).join(".")}.***`) },
    { title: "audience of the wrong type", request: bearer(tokenOf(bound({}, (c) => (c.aud = 42)))) },
    { title: "exp of the wrong type", request: bearer(tokenOf(bound({}, (c) => (c.exp = "tomorrow")))) },
  ],
  absent: [
    { title: "no Authorization header", request: { path: "/", headers: {} } },
    { title: "an opaque token", request: bearer("abcdef.0123456789abcdef") },
    { title: "a JWT of another issuer", request: bearer(signJws({ iss: "https://accounts.example.com", sub: "x" }, ecKey)) },
    { title: "garbage in three parts", request: bearer("a.b.c") },
  ],
});

describe("service-account authenticator messages (upstream's)", () => {
  const check = async (token: string) => (await make().authenticate(bearer(token))) as { error?: string };
  it("expired, wrong audience, unknown key, uid mismatch, invalidated", async () => {
    expect((await check(tokenOf(bound({ now: Math.floor(Date.now() / 1000) - 7200 })))).error).toBe("service account token has expired");
    expect((await check(tokenOf(bound({ now: Math.floor(Date.now() / 1000) + 600 })))).error).toBe("service account token is not valid yet");
    expect((await check(tokenOf(bound({ audiences: ["a", "b"] })))).error).toBe(`token audiences ["a" "b"] is invalid for the target audiences ["${issuer}"]`);
    expect((await check(tokenOf(bound(), foreignKey))).error).toBe("go-jose/go-jose: error in cryptographic primitive");
    expect((await check(tokenOf(bound({ serviceAccount: { ...sa, name: "renamed", uid: "old-uid" } })))).error).toBe("service account UID (new-uid) does not match claim (old-uid)");
    expect((await check(tokenOf(bound({ serviceAccount: { ...sa, name: "gone" } })))).error).toBe('serviceaccounts "gone" not found');
    expect((await check(tokenOf(bound({ pod: { name: "nope", uid: "x" } })))).error).toBe("service account token has been invalidated");
    expect((await check(tokenOf(bound({ pod: { name: "p", uid: "other" } })))).error).toBe("pod UID (pod-uid) does not match service account pod ref claim (other)");
    expect((await check(legacyToken(ecKey, sa, "s"))).error).toBe("Token does not match server's copy");
    expect((await check(legacyToken(ecKey, sa, "missing"))).error).toBe("Token has been invalidated");
  });

  it("leeway: a token expired less than a minute ago still passes", async () => {
    const c = bound({ now: Math.floor(Date.now() / 1000) - 3630 });
    expect(await make().authenticate(bearer(tokenOf(c)))).toHaveProperty("user");
  });

  it("legacy tokens: refused once their Secret is labelled invalid, each use recorded, a warning when the ServiceAccount lists the Secret", async () => {
    reset();
    const used: string[] = [];
    const a = serviceAccountAuthenticator({ issuers: [issuer], publicKeys: [ecPub], apiAudiences: [issuer], lookup: true, getter, recordLegacyTokenUse: async (s) => void used.push(s.metadata.name!) });
    const labelled = (labels: Record<string, string>) =>
      put("secret", "ns", "legacy-secret", "ls-uid", { metadata: { name: "legacy-secret", labels }, data: { token: b64(legacySecretToken) } } as Partial<KObject>);
    labelled({ "kubernetes.io/legacy-token-invalid-since": "2025-01-01" });
    expect(await a.authenticate(bearer(legacySecretToken))).toEqual({
      error: "the token in secret ns/legacy-secret for service account ns/robot has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the 'kubernetes.io/legacy-token-invalid-since' label from the secret to temporarily allow use of this token",
    });
    labelled({});
    const manual = await a.authenticate(bearer(legacySecretToken));
    expect(manual).toHaveProperty("user");
    expect(manual).not.toHaveProperty("warnings");
    put("sa", "ns", "robot", "sa-uid", { secrets: [{ name: "legacy-secret" }] } as Partial<KObject>);
    expect(await a.authenticate(bearer(legacySecretToken))).toMatchObject({ warnings: ["Use tokens from the TokenRequest API or manually created secret-based tokens instead of auto-generated secret-based tokens."] });
    expect(used).toEqual(["legacy-secret", "legacy-secret", "legacy-secret"]);
    // Bound tokens are not Secret tokens: nothing to record.
    await a.authenticate(bearer(unbound));
    expect(used).toHaveLength(3);
  });

  it("lookup=false skips the Secret and ServiceAccount of legacy tokens", async () => {
    reset();
    const a = serviceAccountAuthenticator({ issuers: [issuer], publicKeys: [ecPub], apiAudiences: [issuer], lookup: false, getter });
    expect(await a.authenticate(bearer(legacyToken(ecKey, { ...sa, name: "ghost" }, "missing")))).toHaveProperty("user");
  });
});
