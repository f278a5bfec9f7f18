import { describe, expect, it } from "vitest";
import type { Authenticator, AuthnResult } from "./authenticator.js";
import { unionAuthenticator } from "./union.js";

const fixed = (name: string, r: AuthnResult): Authenticator => ({ name, authenticate: () => r });

describe("union", () => {
  it("the first success decides, even after another method's error", async () => {
    const u = unionAuthenticator([fixed("a", { error: "bad cert" }), fixed("b", { user: { name: "bob", groups: ["g"] } }), fixed("c", { user: { name: "carol", groups: [] } })]);
    expect(await u({ path: "/", headers: {} })).toEqual({ user: { name: "bob", groups: ["g", "system:authenticated"] } });
  });
  it("aggregates several errors as Go does", async () => {
    const u = unionAuthenticator([fixed("a", { error: "e1" }), fixed("b", { error: "e2" })]);
    expect(await u({ path: "/", headers: {} })).toEqual({ error: "[e1, e2]" });
  });
  it("adds system:authenticated once, and not to a user already in system:unauthenticated", async () => {
    expect(await unionAuthenticator([fixed("a", { user: { name: "x", groups: ["system:authenticated"] } })])({ path: "/", headers: {} })).toEqual({ user: { name: "x", groups: ["system:authenticated"] } });
    expect(await unionAuthenticator([fixed("a", { user: { name: "x", groups: ["system:unauthenticated"] } })])({ path: "/", headers: {} })).toEqual({ user: { name: "x", groups: ["system:unauthenticated"] } });
  });
  it("binds requests to --api-audiences and refuses an answer for other audiences", async () => {
    let seen: string[] | undefined;
    const a: Authenticator = { name: "a", authenticate: (r) => ((seen = r.audiences), { user: { name: "x", groups: [] }, audiences: ["other"] }) };
    expect(await unionAuthenticator([a], undefined, { apiAudiences: ["api"] })({ path: "/", headers: {} })).toEqual({ error: "unable to match the audience" });
    expect(seen).toEqual(["api"]);
  });
  it("a throwing method is an error, not a crash", async () => {
    const boom: Authenticator = { name: "b", authenticate: () => Promise.reject(new Error("down")) };
    expect(await unionAuthenticator([boom])({ path: "/", headers: {} })).toEqual({ error: "down" });
  });
});
