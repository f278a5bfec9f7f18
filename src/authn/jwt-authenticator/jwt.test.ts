// The JWT authenticator: the shared conformance suite (claim+prefix mappings as the --oidc-*
// flags build them, and CEL mappings of the configuration file), then upstream's messages for
// each failure, key refetching, and the flags' defaults.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticatorConformance } from "../conformance.testkit.js";
import type { AuthnRequest } from "../authenticator.js";
import { JwtAuthenticator, goTime, untrustedIssuer } from "./authenticator.js";
import { validateJwtAuthenticators, type JwtAuthenticatorSpec } from "./config.js";
import { jwtSpecFromFlags } from "./index.js";
import { makeKey, startTestIssuer, type TestIssuer } from "./issuer.testkit.js";

let issuer: TestIssuer;
let other: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
  other = await startTestIssuer();
});
afterAll(async () => {
  await issuer?.close();
  await other?.close();
});

const bearer = (token: string): AuthnRequest => ({ path: "/api", headers: { authorization: `Bearer ${token}` } });
const made: JwtAuthenticator[] = [];
const cleanup = () => {
  for (const a of made.splice(0)) a.stop();
};

function make(spec: (iss: TestIssuer) => JwtAuthenticatorSpec, signingAlgs?: string[], minKeyRefreshMs = 0): () => JwtAuthenticator {
  return () => {
    const s = spec(issuer);
    const { compiled, errors } = validateJwtAuthenticators([s], []);
    if (errors.length > 0) throw new Error(JSON.stringify(errors));
    const a = new JwtAuthenticator({ spec: s, compiled: compiled[0]!, signingAlgs, minKeyRefreshMs });
    made.push(a);
    return a;
  };
}

const claimSpec = (iss: TestIssuer): JwtAuthenticatorSpec => ({
  issuer: { url: iss.url, audiences: ["kapi"], certificateAuthority: iss.caPem },
  claimValidationRules: [{ claim: "hd", requiredValue: "example.com" }],
  claimMappings: { username: { claim: "email", prefix: "" }, groups: { claim: "groups", prefix: "oidc:" }, uid: { claim: "uid" } },
});

const celSpec = (iss: TestIssuer): JwtAuthenticatorSpec => ({
  issuer: { url: iss.url, audiences: ["kapi", "other"], audienceMatchPolicy: "MatchAny", certificateAuthority: iss.caPem },
  claimValidationRules: [{ expression: 'claims.?tenant.orValue("") != "blocked"', message: "tenant is blocked" }],
  claimMappings: {
    username: { expression: 'claims.sub == "" ? "" : "cel:" + claims.sub' },
    groups: { expression: 'has(claims.roles) ? claims.roles.map(r, "role:" + r) : []' },
    uid: { expression: 'has(claims.oid) ? claims.oid : ""' },
    extra: [{ key: "example.org/tenant", valueExpression: 'claims.?tenant.orValue("")' }],
  },
  userValidationRules: [{ expression: '!user.username.startsWith("cel:system:")', message: "system-like names are not allowed" }],
});

authenticatorConformance({
  method: "jwt (claim and prefix mappings, as the --oidc-* flags build them)",
  make: make(claimSpec, ["RS256", "ES256"]),
  cleanup,
  valid: [
    {
      title: "RSA-signed token, groups list, uid claim",
      request: () => bearer(issuer.token({ email: "ann@example.com", email_verified: true, hd: "example.com", groups: ["dev", "ops"], uid: "u-1" })),
      user: { name: "ann@example.com", uid: "u-1", groups: ["oidc:dev", "oidc:ops"] },
    },
    {
      title: "EC-signed token, groups as one string",
      request: () => bearer(issuer.token({ email: "bo@example.com", hd: "example.com", groups: "admins", uid: "u-2" }, { key: issuer.keys.ec })),
      user: { name: "bo@example.com", uid: "u-2", groups: ["oidc:admins"] },
    },
  ],
  invalid: [
    { title: "email not verified", request: () => bearer(issuer.token({ email: "x@example.com", email_verified: false, hd: "example.com", uid: "u" })) },
    { title: "required claim missing", request: () => bearer(issuer.token({ email: "x@example.com", uid: "u" })) },
    { title: "required claim with another value", request: () => bearer(issuer.token({ email: "x@example.com", hd: "evil.com", uid: "u" })) },
    { title: "algorithm not allowed (PS256)", request: () => bearer(issuer.rawToken({ alg: "PS256", kid: "rsa-1" }, { iss: issuer.url, aud: "kapi", exp: Date.now() / 1000 + 60, email: "x@example.com" }, issuer.keys.rsa.privateKey)) },
    { title: "username claim absent", request: () => bearer(issuer.token({ hd: "example.com", uid: "u" })) },
    { title: "groups claim of the wrong type", request: () => bearer(issuer.token({ email: "x@example.com", hd: "example.com", groups: 5, uid: "u" })) },
  ],
  absent: [
    { title: "no Authorization header", request: { path: "/api", headers: {} } },
    { title: "an opaque token (static token file, bootstrap token)", request: bearer("abcdef.0123456789abcdef") },
    { title: "a service-account token (another issuer)", request: bearer(Buffer.from('{"alg":"RS256"}').toString("base64url") + "." + Buffer.from('{"iss":"https://kubernetes.default.svc.cluster.local"}').toString("base64url") + ".c2ln") },
  ],
});

authenticatorConformance({
  method: "jwt (CEL mappings of the configuration file)",
  make: make(celSpec, ["RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512"]),
  cleanup,
  valid: [
    {
      title: "RSA-signed, roles → groups, extra, uid, credential id from jti",
      request: () => bearer(issuer.token({ sub: "ann", roles: ["dev"], tenant: "t1", oid: "o-1", jti: "j-1" })),
      user: { name: "cel:ann", uid: "o-1", groups: ["role:dev"], extra: { "authentication.kubernetes.io/credential-id": ["JTI=j-1"], "example.org/tenant": ["t1"] } },
    },
    {
      title: "EC-signed, several audiences (MatchAny), nothing optional",
      request: () => bearer(issuer.token({ sub: "bo", aud: ["zzz", "other"] }, { key: issuer.keys.ec })),
      user: { name: "cel:bo", uid: "", groups: [] },
    },
  ],
  invalid: [
    { title: "expired", request: () => bearer(issuer.token({ sub: "a", exp: Math.floor(Date.now() / 1000) - 30 })) },
    { title: "no exp", request: () => bearer(issuer.token({ sub: "a", exp: undefined })) },
    { title: "nbf in the future", request: () => bearer(issuer.token({ sub: "a", nbf: Math.floor(Date.now() / 1000) + 600 })) },
    { title: "wrong audience", request: () => bearer(issuer.token({ sub: "a", aud: "someone-else" })) },
    {
      title: "tampered payload",
      request: () => {
        const [h, , s] = issuer.token({ sub: "a" }).split(".");
        return bearer(`${h}.${Buffer.from(JSON.stringify({ iss: issuer.url, aud: "kapi", sub: "root", exp: Date.now() / 1000 + 60 })).toString("base64url")}.${s}`);
      },
    },
    { title: "alg none", request: () => bearer(`${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(JSON.stringify({ iss: issuer.url, aud: "kapi", sub: "a", exp: Date.now() / 1000 + 60 })).toString("base64url")}.`) },
    { title: "key of the wrong type (ES256 header naming the RSA key)", request: () => bearer(issuer.rawToken({ alg: "ES256", kid: "rsa-1" }, { iss: issuer.url, aud: "kapi", sub: "a", exp: Date.now() / 1000 + 60 }, issuer.keys.ec.privateKey)) },
    { title: "unknown kid, still unknown after refetching", request: () => bearer(issuer.token({ sub: "a" }, { key: makeKey("rsa", "ghost") })) },
    { title: "signed by another issuer's key", request: () => bearer(issuer.token({ sub: "a" }, { key: other.keys.rsa })) },
    { title: "failed claim validation rule", request: () => bearer(issuer.token({ sub: "a", tenant: "blocked" })) },
    { title: "failed user validation rule", request: () => bearer(issuer.token({ sub: "system:admin" })) },
    { title: "empty username", request: () => bearer(issuer.token({ sub: "" })) },
    { title: "malformed signature segment", request: () => bearer(issuer.token({ sub: "a" }).replace(/\.[^.]*$/, ".!!!")) },
    { title: "malformed header", request: () => bearer(`e30K.${Buffer.from(JSON.stringify({ iss: issuer.url })).toString("base64url")}.c2ln`) },
    { title: "claims of the wrong types", request: () => bearer(issuer.token({ sub: "a", exp: "tomorrow" })) },
  ],
  absent: [
    { title: "another issuer's token", request: bearer(`${Buffer.from('{"alg":"RS256","kid":"rsa-1"}').toString("base64url")}.${Buffer.from('{"iss":"https://other.example","sub":"a"}').toString("base64url")}.c2ln`) },
    { title: "not a JWT", request: bearer("not-a-jwt") },
    { title: "JSON serialization", request: bearer('{"payload":"x"}') },
    { title: "payload not base64url", request: bearer("a.b*c.d") },
  ],
});

describe("jwt authenticator: upstream's messages", () => {
  let a: JwtAuthenticator;
  beforeAll(() => {
    a = make(celSpec, ["RS256", "ES256"])();
  });
  afterAll(cleanup);
  const errorOf = async (token: string) => {
    const r = await a.authenticate(bearer(token));
    return r && "error" in r ? r.error : JSON.stringify(r);
  };
  const exp = () => Math.floor(Date.now() / 1000) + 600;

  it("declines another issuer's token (absent, so the next method runs)", async () => {
    expect(await a.authenticate(bearer(other.token({ sub: "a" })))).toBeUndefined();
    expect(untrustedIssuer("a.b.c")).toBeUndefined();
    expect(untrustedIssuer(`x.${Buffer.from('{"iss":"accounts.google.com"}').toString("base64url")}.y`)).toBe("https://accounts.google.com");
  });

  it("words each failure as upstream", async () => {
    const past = Math.floor(Date.now() / 1000) - 10;
    expect(await errorOf(issuer.token({ sub: "a", exp: past }))).toBe(`oidc: verify token: oidc: token is expired (Token Expiry: ${goTime(past * 1000)})`);
    expect(await errorOf(issuer.token({ sub: "a", aud: ["x", "y"] }))).toBe('oidc: verify token: oidc: expected audience in ["kapi" "other"] got ["x" "y"]');
    expect(await errorOf(issuer.rawToken({ alg: "PS384", kid: "rsa-1" }, { iss: issuer.url, aud: "kapi", exp: exp() }, issuer.keys.rsa.privateKey, "sha384"))).toBe(
      'oidc: verify token: oidc: id token signed with unsupported algorithm, expected ["RS256" "ES256"] got "PS384"',
    );
    expect(await errorOf(issuer.token({ sub: "a" }, { key: makeKey("rsa", "ghost") }))).toBe("oidc: verify token: failed to verify signature: failed to verify id token signature");
    expect(await errorOf(issuer.token({ sub: "a", tenant: "blocked" }))).toBe(
      `oidc: error evaluating claim validation expression: validation expression 'claims.?tenant.orValue("") != "blocked"' failed: tenant is blocked`,
    );
    expect(await errorOf(issuer.token({ sub: "system:x" }))).toBe(
      `oidc: error evaluating user info validation rule: validation expression '!user.username.startsWith("cel:system:")' failed: system-like names are not allowed`,
    );
    expect(await errorOf(issuer.token({ sub: "" }))).toBe("oidc: empty username via CEL expression is not allowed");
    expect(await errorOf(issuer.token({ exp: exp() }))).toBe(`oidc: error evaluating username claim expression: expression 'claims.sub == "" ? "" : "cel:" + claims.sub' resulted in error: no such key: sub`);
    expect(await errorOf(issuer.token({ sub: "a", roles: [1] }))).toMatch(/^oidc: error evaluating group claim expression: /);
  });

  it("words the claim-mapping failures as upstream", async () => {
    const b = make(claimSpec, ["RS256"])();
    const err = async (claims: Record<string, unknown>) => {
      const r = await b.authenticate(bearer(issuer.token(claims)));
      return r && "error" in r ? r.error : JSON.stringify(r);
    };
    expect(await err({ hd: "example.com" })).toBe('oidc: parse username claims "email": claim not present');
    expect(await err({ email: 7, hd: "example.com" })).toBe('oidc: parse username claims "email": json: cannot unmarshal number into Go value of type string');
    expect(await err({ email: "a@b", email_verified: false, hd: "example.com" })).toBe("oidc: email not verified");
    expect(await err({ email: "a@b", email_verified: "yes", hd: "example.com" })).toBe("oidc: parse 'email_verified' claim: json: cannot unmarshal string into Go value of type bool");
    expect(await err({ email: "a@b", uid: "u" })).toBe("oidc: required claim hd not present in ID token");
    expect(await err({ email: "a@b", hd: "x.org", uid: "u" })).toBe("oidc: required claim hd value does not match. Got = x.org, want = example.com");
    expect(await err({ email: "a@b", hd: "example.com" })).toBe('oidc: parse uid claim "uid": claim not present');
    expect(await err({ email: "a@b", hd: "example.com", uid: "u", groups: { a: 1 } })).toBe('oidc: parse groups claim "groups": json: cannot unmarshal object into Go value of type string');
  });

  it("refetches the keys for an unknown kid (rotation), at most once per interval", async () => {
    const rotated = makeKey("ec", "ec-2");
    const before = issuer.hits.get("/jwks") ?? 0;
    issuer.published.push(rotated);
    try {
      const r = await a.authenticate(bearer(issuer.token({ sub: "rot" }, { key: rotated })));
      expect(r && "user" in r && r.user.name).toBe("cel:rot");
      expect(issuer.hits.get("/jwks")).toBe(before + 1);
    } finally {
      issuer.published.pop();
    }
    // With a refresh interval, a burst of unknown kids costs one fetch.
    const limited = make(celSpec, ["RS256"], 60_000)();
    await limited.ready();
    const n = issuer.hits.get("/jwks") ?? 0;
    for (let i = 0; i < 5; i++) expect(await limited.authenticate(bearer(issuer.token({ sub: "a" }, { key: makeKey("rsa", `k${i}`) })))).toHaveProperty("error");
    expect(issuer.hits.get("/jwks")).toBe(n);
  });

  it("is not initialized while discovery fails (wrong CA), then 401", async () => {
    const spec = { ...celSpec(issuer), issuer: { ...celSpec(issuer).issuer, certificateAuthority: other.caPem } };
    const { compiled } = validateJwtAuthenticators([spec], []);
    const logs: string[] = [];
    const b = new JwtAuthenticator({ spec, compiled: compiled[0]!, log: (m) => logs.push(m) });
    made.push(b);
    expect(await b.authenticate(bearer(issuer.token({ sub: "a" })))).toEqual({ error: "oidc: authenticator not initialized" });
    expect(logs.join("\n")).toMatch(/oidc authenticator: initializing plugin: /);
  });

  it("checks the issuer the discovery document announces", async () => {
    const third = await startTestIssuer();
    third.announcedIssuer = "https://elsewhere.example";
    try {
      const spec: JwtAuthenticatorSpec = { issuer: { url: third.url, audiences: ["kapi"], certificateAuthority: third.caPem }, claimMappings: { username: { claim: "sub", prefix: "" } } };
      const { compiled } = validateJwtAuthenticators([spec], []);
      const logs: string[] = [];
      const b = new JwtAuthenticator({ spec, compiled: compiled[0]!, log: (m) => logs.push(m) });
      made.push(b);
      expect(await b.ready()).toBe(false);
      expect(logs[0]).toBe(`oidc authenticator: initializing plugin: oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(third.url)} got "https://elsewhere.example"`);
    } finally {
      await third.close();
    }
  });

  it("uses discoveryURL as is, and checks the document names issuer.url", async () => {
    const fourth = await startTestIssuer({ discoveryPath: "/custom/discovery" });
    try {
      const spec: JwtAuthenticatorSpec = {
        issuer: { url: fourth.url, discoveryURL: `${fourth.url}/custom/discovery`, audiences: ["kapi"], certificateAuthority: fourth.caPem },
        claimMappings: { username: { claim: "sub", prefix: "p:" } },
      };
      const { compiled, errors } = validateJwtAuthenticators([spec], []);
      expect(errors).toEqual([]);
      const b = new JwtAuthenticator({ spec, compiled: compiled[0]! });
      made.push(b);
      const r = await b.authenticate(bearer(fourth.token({ sub: "z" })));
      expect(r).toEqual({ user: { name: "p:z", uid: "", groups: [], extra: {} } });
      expect(fourth.hits.get("/custom/discovery")).toBe(1);
      expect(fourth.hits.get("/.well-known/openid-configuration")).toBeUndefined();
    } finally {
      await fourth.close();
    }
  });
});

describe("--oidc-* flags → the authenticator", () => {
  it("defaults the username prefix as upstream", () => {
    const base = { oidcIssuerURL: "https://issuer.example", oidcClientID: "kapi" };
    expect(jwtSpecFromFlags(base)!.claimMappings.username).toEqual({ claim: "sub", prefix: "https://issuer.example#" });
    expect(jwtSpecFromFlags({ ...base, oidcUsernameClaim: "email" })!.claimMappings.username).toEqual({ claim: "email", prefix: "" });
    expect(jwtSpecFromFlags({ ...base, oidcUsernamePrefix: "-" })!.claimMappings.username).toEqual({ claim: "sub", prefix: "" });
    expect(jwtSpecFromFlags({ ...base, oidcUsernamePrefix: "corp:" })!.claimMappings.username).toEqual({ claim: "sub", prefix: "corp:" });
    const g = jwtSpecFromFlags({ ...base, oidcGroupsClaim: "groups", oidcGroupsPrefix: "g:", oidcRequiredClaims: { hd: "example.com" } })!;
    expect(g.claimMappings.groups).toEqual({ claim: "groups", prefix: "g:" });
    expect(g.claimValidationRules).toEqual([{ claim: "hd", requiredValue: "example.com" }]);
    expect(jwtSpecFromFlags({ oidcIssuerURL: "https://x" })).toBeUndefined();
    expect(() => jwtSpecFromFlags({ ...base, oidcCAFile: "/nonexistent/ca.pem" })).toThrow("open /nonexistent/ca.pem: no such file or directory");
  });

  it("refuses an unknown signing algorithm", () => {
    const spec = jwtSpecFromFlags({ oidcIssuerURL: "https://issuer.example", oidcClientID: "kapi" })!;
    const { compiled } = validateJwtAuthenticators([spec], []);
    expect(() => new JwtAuthenticator({ spec, compiled: compiled[0]!, signingAlgs: ["HS256"] })).toThrow('oidc: unsupported signing alg: "HS256"');
  });
});
