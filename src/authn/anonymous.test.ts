import { describe, expect, it } from "vitest";
import { anonymousAuthenticator } from "./anonymous.js";
import { authenticatorConformance } from "./conformance.testkit.js";
import { unionAuthenticator } from "./union.js";

// Anonymous has no credential to be valid or invalid: what the suite can check is that it leaves
// requests outside its paths to the next method (below: the user it gives, and the union's rules).
authenticatorConformance({
  method: "anonymous",
  make: () => anonymousAuthenticator({ enabled: true, paths: ["/livez"] })!,
  valid: [],
  invalid: [],
  absent: [{ title: "a path outside the anonymous conditions", request: { path: "/api", headers: {} } }],
});

describe("anonymous", () => {
  it("is system:anonymous in system:unauthenticated, without system:authenticated", async () => {
    const union = unionAuthenticator([], anonymousAuthenticator({ enabled: true }));
    expect(await union({ path: "/api", headers: {} })).toEqual({ user: { name: "system:anonymous", groups: ["system:unauthenticated"] } });
  });
  it("--anonymous-auth=false: a request without credentials is a 401", async () => {
    expect(anonymousAuthenticator({ enabled: false })).toBeUndefined();
    expect(await unionAuthenticator([], undefined)({ path: "/api", headers: {} })).toEqual({ error: "Unauthorized", unrecognised: true });
  });
  it("is never reached with a bearer token nobody recognises, nor after a method's error", async () => {
    const anon = anonymousAuthenticator({ enabled: true });
    expect(await unionAuthenticator([], anon)({ path: "/", headers: { authorization: "Bearer x" } })).toEqual({ error: "invalid bearer token" });
    const failing = { name: "f", authenticate: () => ({ error: "boom" }) };
    expect(await unionAuthenticator([failing], anon)({ path: "/", headers: {} })).toEqual({ error: "boom" });
    // Another scheme is no bearer token: anonymous, as upstream.
    expect(await unionAuthenticator([], anon)({ path: "/", headers: { authorization: "Basic YTpi" } })).toMatchObject({ user: { name: "system:anonymous" } });
  });
});
