import { describe, expect, it } from "vitest";
import { PolicyEvaluator } from "./policy.js";
import type { PolicyAttributes, PolicyRule } from "./types.js";

const alice = { name: "alice", groups: ["devs", "system:authenticated"] };
const res = (o: Partial<PolicyAttributes> = {}): PolicyAttributes => ({ verb: "get", isResourceRequest: true, path: "/api/v1/namespaces/ns/pods/p1", namespace: "ns", apiGroup: "", resource: "pods", subresource: "", name: "p1", ...o });
const url = (path: string): PolicyAttributes => ({ verb: "get", isResourceRequest: false, path, namespace: "", apiGroup: "", resource: "", subresource: "", name: "" });
const levelOf = (rules: PolicyRule[], attrs: PolicyAttributes, user: typeof alice | "anonymous" = alice) => new PolicyEvaluator({ rules }).evaluate(user === "anonymous" ? undefined : user, attrs).level;

describe("the audit policy checker", () => {
  it("takes the first rule that matches; none matching is None", () => {
    const rules: PolicyRule[] = [{ level: "None", users: ["bob"] }, { level: "Request", verbs: ["get"] }, { level: "Metadata" }];
    expect(levelOf(rules, res())).toBe("Request");
    expect(levelOf(rules, res({ verb: "list" }))).toBe("Metadata");
    expect(levelOf([{ level: "Metadata", verbs: ["create"] }], res())).toBe("None");
  });

  it("matches users and groups only of an authenticated request", () => {
    expect(levelOf([{ level: "Metadata", userGroups: ["devs"] }], res())).toBe("Metadata");
    expect(levelOf([{ level: "Metadata", userGroups: ["ops"] }], res())).toBe("None");
    expect(levelOf([{ level: "Metadata", users: ["alice"] }], res(), "anonymous")).toBe("None");
  });

  it("matches resources as upstream: group, resource/subresource, */sub, res/*, names; namespaces ('' = cluster scope)", () => {
    const status = res({ subresource: "status" });
    expect(levelOf([{ level: "Metadata", resources: [{ group: "", resources: ["pods/status"] }] }], status)).toBe("Metadata");
    expect(levelOf([{ level: "Metadata", resources: [{ group: "", resources: ["pods"] }] }], status)).toBe("None");
    expect(levelOf([{ level: "Metadata", resources: [{ resources: ["*/status"] }] }], status)).toBe("Metadata");
    expect(levelOf([{ level: "Metadata", resources: [{ resources: ["pods/*"] }] }], status)).toBe("Metadata");
    expect(levelOf([{ level: "Metadata", resources: [{ resources: ["*"] }] }], status)).toBe("Metadata");
    expect(levelOf([{ level: "Metadata", resources: [{ group: "apps" }] }], res())).toBe("None");
    expect(levelOf([{ level: "Metadata", resources: [{ group: "" }] }], res())).toBe("Metadata");
    expect(levelOf([{ level: "Metadata", resources: [{ resources: ["pods"], resourceNames: ["p2"] }] }], res())).toBe("None");
    expect(levelOf([{ level: "Metadata", resources: [{ resources: ["pods"], resourceNames: ["p1"] }] }], res())).toBe("Metadata");
    expect(levelOf([{ level: "Metadata", namespaces: [""] }], res({ namespace: "" }))).toBe("Metadata");
    expect(levelOf([{ level: "Metadata", namespaces: ["other"] }], res())).toBe("None");
    expect(levelOf([{ level: "Metadata", resources: [{ resources: ["pods"] }] }], url("/api/v1/pods"))).toBe("None");
  });

  it("matches non-resource URLs exactly, with *, or by a prefix ending in *", () => {
    expect(levelOf([{ level: "Metadata", nonResourceURLs: ["/healthz"] }], url("/healthz"))).toBe("Metadata");
    expect(levelOf([{ level: "Metadata", nonResourceURLs: ["/healthz"] }], url("/healthz/etcd"))).toBe("None");
    expect(levelOf([{ level: "Metadata", nonResourceURLs: ["/healthz*"] }], url("/healthz/etcd"))).toBe("Metadata");
    expect(levelOf([{ level: "Metadata", nonResourceURLs: ["*"] }], url("/version"))).toBe("Metadata");
    expect(levelOf([{ level: "Metadata", nonResourceURLs: ["*"] }], res())).toBe("None");
  });

  it("adds a rule's omitStages to the policy's; a rule's omitManagedFields overrides the policy's", () => {
    const e = new PolicyEvaluator({ omitStages: ["RequestReceived"], omitManagedFields: true, rules: [{ level: "Request", verbs: ["get"], omitStages: ["Panic"], omitManagedFields: false }, { level: "Metadata" }] });
    expect(e.evaluate(alice, res())).toEqual({ level: "Request", omitStages: ["RequestReceived", "Panic"], omitManagedFields: false });
    expect(e.evaluate(alice, res({ verb: "list" }))).toEqual({ level: "Metadata", omitStages: ["RequestReceived"], omitManagedFields: true });
    expect(e.evaluate(alice, { ...url("/x"), verb: "post" })).toMatchObject({ level: "Metadata" });
  });
});
