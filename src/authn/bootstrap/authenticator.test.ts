import { describe, expect, it } from "vitest";
import type { Authenticator, AuthnRequest } from "../authenticator.js";
import { anonymousAuthenticator } from "../anonymous.js";
import { authenticatorConformance } from "../conformance.testkit.js";
import { unionAuthenticator } from "../union.js";
import type { KObject } from "../../apimachinery/object.js";
import { bootstrapTokenAuthenticator } from "./authenticator.js";

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const bearer = (token: string): AuthnRequest => ({ path: "/api", headers: { authorization: `Bearer ${token}` } });
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

export function tokenSecret(id: string, secret: string, extra: Record<string, string> = {}, meta: Record<string, unknown> = {}, type = "bootstrap.kubernetes.io/token"): KObject {
  const data: Record<string, string> = { "token-id": id, "token-secret": secret, "usage-bootstrap-authentication": "true", ...extra };
  for (const k of Object.keys(data)) if (data[k] === undefined) delete data[k];
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: `bootstrap-token-${id}`, namespace: "kube-system", ...meta },
    type,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  } as KObject;
}

const secrets = new Map<string, KObject>();
const put = (s: KObject) => secrets.set(`${s.metadata.namespace}/${s.metadata.name}`, s);
put(tokenSecret("abcdef", "0123456789abcdef"));
put(tokenSecret("groups", "0123456789abcdef", { "auth-extra-groups": "system:bootstrappers:worker,system:bootstrappers:a:b-c,system:bootstrappers:worker" }));
put(tokenSecret("future", "0123456789abcdef", { expiration: iso(Date.now() + 3_600_000) }));
put(tokenSecret("expird", "0123456789abcdef", { expiration: iso(Date.now() - 1000) }));
put(tokenSecret("badexp", "0123456789abcdef", { expiration: "tomorrow" }));
put(tokenSecret("nouse1", "0123456789abcdef", { "usage-bootstrap-authentication": "false" }));
put(tokenSecret("nouse2", "0123456789abcdef", { "usage-bootstrap-authentication": "True" }));
put(tokenSecret("delete", "0123456789abcdef", {}, { deletionTimestamp: "2024-01-01T00:00:00Z", finalizers: ["x"] }));
put(tokenSecret("opaque", "0123456789abcdef", {}, {}, "Opaque"));
put(tokenSecret("badgrp", "0123456789abcdef", { "auth-extra-groups": "system:bootstrappers:ok,system:masters" }));
put(tokenSecret("trail1", "0123456789abcdef", { "auth-extra-groups": "system:bootstrappers:x-" }));
put({ ...tokenSecret("wrngid", "0123456789abcdef"), data: { ...(tokenSecret("wrngid", "0123456789abcdef") as any).data, "token-id": b64("other1") } } as KObject);
put({ ...tokenSecret("nodata", "0123456789abcdef"), data: undefined } as unknown as KObject);

// A Secret whose read fails (storage trouble): the one case upstream turns into an error.
const reader = {
  get: (ns: string, name: string) => {
    if (name === "bootstrap-token-broken") throw new Error("storage is closing");
    return secrets.get(`${ns}/${name}`);
  },
};
const make = () => bootstrapTokenAuthenticator({ secrets: reader });

// Upstream declines (not authenticated, no error) every token of the bootstrap form that does
// not match a usable Secret: for this method they are "absent", and the union then refuses them
// as an invalid bearer token (checked below).
const declined: [string, string][] = [
  ["no such Secret", "zzzzzz.0123456789abcdef"],
  ["wrong token secret", "abcdef.0123456789abcdeg"],
  ["expired", "expird.0123456789abcdef"],
  ["unparseable expiration (treated as expired)", "badexp.0123456789abcdef"],
  ["usage-bootstrap-authentication=false", "nouse1.0123456789abcdef"],
  ["usage-bootstrap-authentication not exactly \"true\"", "nouse2.0123456789abcdef"],
  ["Secret being deleted", "delete.0123456789abcdef"],
  ["Secret of another type", "opaque.0123456789abcdef"],
  ["Secret without data", "nodata.0123456789abcdef"],
  ["token-id key not the token's id", "wrngid.0123456789abcdef"],
  ["an extra group outside system:bootstrappers:", "badgrp.0123456789abcdef"],
  ["an extra group ending in '-'", "trail1.0123456789abcdef"],
];

authenticatorConformance({
  method: "bootstrap token",
  make,
  valid: [
    { title: "no extra groups", request: bearer("abcdef.0123456789abcdef"), user: { name: "system:bootstrap:abcdef", groups: ["system:bootstrappers"] } },
    {
      title: "extra groups, deduplicated and sorted",
      request: bearer("groups.0123456789abcdef"),
      user: { name: "system:bootstrap:groups", groups: ["system:bootstrappers", "system:bootstrappers:a:b-c", "system:bootstrappers:worker"] },
    },
    { title: "expiration in the future", request: bearer("future.0123456789abcdef"), user: { name: "system:bootstrap:future", groups: ["system:bootstrappers"] } },
  ],
  invalid: [{ title: "the Secret cannot be read (the one error upstream returns)", request: bearer("broken.0123456789abcdef") }],
  absent: [
    { title: "no Authorization header", request: { path: "/api", headers: {} } },
    { title: "a static token", request: bearer("tok-alice") },
    { title: "a JWT", request: bearer("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln") },
    { title: "upper case id", request: bearer("ABCDEF.0123456789abcdef") },
    { title: "secret too short", request: bearer("abcdef.0123456789abcde") },
    { title: "extra segment", request: bearer("abcdef.0123456789abcdef.x") },
    { title: "basic auth", request: { path: "/api", headers: { authorization: "Basic YTpi" } } },
    ...declined.map(([title, token]) => ({ title: `declined as upstream: ${title}`, request: bearer(token) })),
  ],
});

describe("bootstrap token: a Secret that cannot be read is an error (401)", () => {
  it("returns the read error", async () => {
    const a = bootstrapTokenAuthenticator({ secrets: { get: () => Promise.reject(new Error("storage is closing")) } });
    const r = await a.authenticate(bearer("abcdef.0123456789abcdef"));
    expect(r).toEqual({ error: "failed to read secret kube-system/bootstrap-token-abcdef: storage is closing" });
    const u = await unionAuthenticator([a], anonymousAuthenticator({ enabled: true }))(bearer("abcdef.0123456789abcdef"));
    expect("error" in u).toBe(true);
  });
});

describe("bootstrap token: declined tokens through the union", () => {
  const union = (first: Authenticator, ...rest: Authenticator[]) => unionAuthenticator([first, ...rest], anonymousAuthenticator({ enabled: true }));
  for (const [title, token] of declined) {
    it(`${title} → 401 invalid bearer token, never anonymous`, async () => {
      expect(await union(make())(bearer(token))).toEqual({ error: "invalid bearer token" });
    });
  }
  it("a declined token is still offered to the next token authenticator", async () => {
    const webhook: Authenticator = { name: "later", authenticate: (r) => (r.headers.authorization === "Bearer expird.0123456789abcdef" ? { user: { name: "someone", groups: [] } } : undefined) };
    expect(await union(make(), webhook)(bearer("expird.0123456789abcdef"))).toEqual({ user: { name: "someone", groups: ["system:authenticated"] } });
  });
  it("logs why a matching Secret was refused, without the token secret", async () => {
    const lines: string[] = [];
    const a = bootstrapTokenAuthenticator({ secrets: reader, log: (m) => lines.push(m) });
    await a.authenticate(bearer("abcdef.0123456789abcdeg"));
    await a.authenticate(bearer("nouse1.0123456789abcdef"));
    expect(lines).toEqual([
      "Bootstrap secret kube-system/bootstrap-token-abcdef matching bearer token has invalid value for key token-secret.",
      "Bootstrap secret kube-system/bootstrap-token-nouse1 matching bearer token not marked usage-bootstrap-authentication=true.",
    ]);
  });
  it("an expiration just passed is rejected; one a moment ahead is accepted", async () => {
    const t0 = Date.parse("2030-01-01T00:00:00Z");
    const s = tokenSecret("edge00", "0123456789abcdef", { expiration: "2030-01-01T00:00:00Z" });
    const at = (now: number) => bootstrapTokenAuthenticator({ secrets: { get: () => s }, now: () => now }).authenticate(bearer("edge00.0123456789abcdef"));
    expect(await at(t0 - 1)).toMatchObject({ user: { name: "system:bootstrap:edge00" } });
    expect(await at(t0)).toBeUndefined();
    // Offsets other than Z count.
    const s2 = tokenSecret("edge01", "0123456789abcdef", { expiration: "2030-01-01T02:00:00+02:00" });
    expect(await bootstrapTokenAuthenticator({ secrets: { get: () => s2 }, now: () => t0 - 1 }).authenticate(bearer("edge01.0123456789abcdef"))).toMatchObject({ user: {} });
    expect(await bootstrapTokenAuthenticator({ secrets: { get: () => s2 }, now: () => t0 }).authenticate(bearer("edge01.0123456789abcdef"))).toBeUndefined();
  });
});
