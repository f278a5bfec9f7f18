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
  it("makes one authenticated user per user a method hands over again, and a new one for a method that does not say so", async () => {
    const connectionUser = { name: "jane", groups: ["team-a"] };
    const reused = unionAuthenticator([fixed("x509", { user: connectionUser, reused: true })]);
    const first = (await reused({ path: "/", headers: {} })) as { user: unknown };
    expect(first.user).toEqual({ name: "jane", groups: ["team-a", "system:authenticated"] });
    expect(((await reused({ path: "/", headers: {} })) as { user: unknown }).user).toBe(first.user);
    expect(connectionUser.groups).toEqual(["team-a"]);
    const fresh = unionAuthenticator([fixed("token", { user: connectionUser })]);
    const a = (await fresh({ path: "/", headers: {} })) as { user: unknown };
    expect(a.user).toEqual(first.user);
    expect(((await fresh({ path: "/", headers: {} })) as { user: unknown }).user).not.toBe(a.user);
  });
  it("answers at once when every method asked did, and waits for a method that answers later", async () => {
    const now = unionAuthenticator([fixed("a", undefined), fixed("b", { user: { name: "bob", groups: [] } })]);
    expect(now({ path: "/", headers: {} })).toEqual({ user: { name: "bob", groups: ["system:authenticated"] } });
    const later: Authenticator = { name: "l", authenticate: () => Promise.resolve({ error: "expired" }) };
    const mixed = unionAuthenticator([later, fixed("b", { user: { name: "bob", groups: [] } })]);
    const answer = mixed({ path: "/", headers: {} });
    expect(answer).toBeInstanceOf(Promise);
    expect(await answer).toEqual({ user: { name: "bob", groups: ["system:authenticated"] } });
    expect(await unionAuthenticator([later, fixed("c", { error: "bad" })])({ path: "/", headers: {} })).toEqual({ error: "[expired, bad]" });
  });
  it("a throwing method is an error, not a crash", async () => {
    const boom: Authenticator = { name: "b", authenticate: () => Promise.reject(new Error("down")) };
    expect(await unionAuthenticator([boom])({ path: "/", headers: {} })).toEqual({ error: "down" });
  });
});
