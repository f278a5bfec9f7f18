import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { latest } from "./api.js";
import { existingPodWarnings, prioritizePods } from "./namespace-pods.js";
import { aggregate } from "./registry.js";

const pod = (name: string, extra: Record<string, unknown> = {}, owner?: string) =>
  ({ metadata: { name, ...(owner ? { ownerReferences: [{ controller: true, uid: owner, apiVersion: "apps/v1", kind: "ReplicaSet", name: owner }] } : {}) }, spec: { containers: [{ name: "c" }], ...extra } }) as unknown as KObject;
const bad = aggregate([{ allowed: false, reason: "privileged", detail: "x" }]);

describe("existing pod warnings", () => {
  it("stops at the deadline and says how many pods it checked", () => {
    let calls = 0;
    const w = existingPodWarnings("ns", { level: "baseline", version: latest }, [pod("a"), pod("b"), pod("c")], {
      evaluate: () => bad,
      exemptRuntimeClass: () => false,
      maxPods: 3000,
      expired: () => ++calls >= 1,
    });
    expect(w).toEqual([
      "new PodSecurity enforce level only checked against the first 1 of 3 existing pods",
      'existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:latest"',
      "a: privileged",
    ]);
  });

  it("puts one pod per controller first and leaves exempt runtime classes out", () => {
    const order = prioritizePods([pod("r1", {}, "rs"), pod("r2", {}, "rs"), pod("k", { runtimeClassName: "kata" }), pod("solo"), pod("s1", {}, "sts")], (rc) => rc === "kata");
    expect(order.map((p) => p.metadata.name)).toEqual(["r1", "solo", "s1", "r2"]);
  });
});
