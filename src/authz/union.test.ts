import { describe, expect, it } from "vitest";
import { alwaysAllow, alwaysDeny } from "./always.js";
import { attributes } from "./conformance.testkit.js";
import { privilegedGroups } from "./privileged-groups.js";
import { unionAuthorizer, unionRuleResolver } from "./union.js";

const masters = { name: "admin", groups: ["system:masters", "system:authenticated"] };

describe("privileged groups", () => {
  it("allow a member ahead of the chain and have no opinion on anyone else", async () => {
    const chain = unionAuthorizer([privilegedGroups("system:masters"), alwaysDeny]);
    expect(await chain.authorize(attributes({ user: masters, verb: "delete", resource: "nodes" }))).toEqual({ decision: "allow", reason: "" });
    expect((await chain.authorize(attributes({ user: { name: "bob", groups: [] }, verb: "get", resource: "pods" }))).decision).toBe("deny");
  });
});

describe("the authorizers' union", () => {
  const noOpinion = (reason: string, error?: string) => ({ authorize: () => ({ decision: "no-opinion" as const, reason, ...(error ? { error } : {}) }) });
  it("decides at once when every authorizer asked answered at once, and waits for one that answers later", async () => {
    const bob = attributes({ user: { name: "bob", groups: [] }, verb: "get", resource: "pods" });
    expect(unionAuthorizer([noOpinion("a"), alwaysAllow]).authorize(bob)).toEqual({ decision: "allow", reason: "" });
    const later = { authorize: () => Promise.resolve({ decision: "no-opinion" as const, reason: "later", error: "e1" }) };
    const answer = unionAuthorizer([noOpinion("a"), later, noOpinion("b", "e2")]).authorize(bob);
    expect(answer).toBeInstanceOf(Promise);
    expect(await answer).toEqual({ decision: "deny", reason: "a\nlater\nb", defaultDeny: true, error: "[e1, e2]" });
    expect(unionAuthorizer([noOpinion("")]).authorize(bob)).toEqual({ decision: "deny", reason: "", defaultDeny: true });
  });
  it("a throwing authorizer is a rejected answer, not a throw", async () => {
    const boom = { authorize: () => { throw new Error("down"); } };
    const answer = unionAuthorizer([boom]).authorize(attributes({ user: masters, verb: "get", resource: "pods" }));
    await expect(answer).rejects.toThrow("down");
  });
});

describe("the rule resolvers' union", () => {
  it("concatenates rules, is incomplete when one resolver is or when an authorizer has none, and aggregates errors", async () => {
    const failing = { rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: "b" }) };
    const erring = { rulesFor: () => ({ resourceRules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }], nonResourceRules: [], incomplete: false, evaluationError: "a" }) };
    const r = await unionRuleResolver([erring, alwaysDeny, failing]).rulesFor(masters, "default");
    expect(r).toEqual({ resourceRules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }], nonResourceRules: [], incomplete: true, evaluationError: "[a, b]" });
    expect((await unionRuleResolver([alwaysAllow, privilegedGroups("system:masters")]).rulesFor(masters, "default")).incomplete).toBe(true);
    expect(await unionRuleResolver([alwaysDeny]).rulesFor(masters, "default")).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: false });
  });
});
