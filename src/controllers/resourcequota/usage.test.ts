import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import { resourceListJson } from "../../quota/resource-list.js";
import { calculateUsage, countedTypes } from "./usage.js";

const type = (group: string, resource: string, namespaced = true) => ({ group, resource, namespaced, virtual: false }) as ResourceType;
const stored = [type("", "pods"), type("", "configmaps"), type("", "events"), type("", "nodes", false), type("example.com", "widgets")];
const pod = (name: string, cpu?: string, extra: object = {}) =>
  ({ metadata: { name }, spec: { containers: [{ name: "c", resources: cpu ? { requests: { cpu } } : {} }], ...extra } }) as KObject;

describe("quota usage from stored objects", () => {
  it("lists only the types a hard name counts (never events or cluster-scoped types)", () => {
    const counted = countedTypes(stored, ["pods", "requests.cpu", "count/widgets.example.com", "count/events", "bogus"]);
    expect(counted.map((c) => [c.type.resource, c.names])).toEqual([
      ["pods", ["pods", "requests.cpu"]],
      ["widgets", ["count/widgets.example.com"]],
    ]);
  });

  it("sums the objects in every scope of the quota; resources no object uses are zero", async () => {
    const quota = { metadata: { name: "q" }, spec: { hard: { pods: "5", "requests.cpu": "4", "count/widgets.example.com": "2" }, scopes: ["NotBestEffort"] } } as unknown as KObject;
    const objects: Record<string, KObject[]> = {
      pods: [pod("a", "500m"), pod("b"), pod("c", "1", {}), { ...pod("d", "2"), status: { phase: "Succeeded" } } as KObject],
      widgets: [{ metadata: { name: "w" } } as KObject],
    };
    const counted = countedTypes(stored, Object.keys((quota.spec as { hard: object }).hard));
    const used = await calculateUsage(quota, counted, async (t) => objects[t.resource] ?? [], 0);
    // The widget evaluator knows no scopes: a scoped quota counts no widgets.
    expect(resourceListJson(used)).toEqual({ "count/widgets.example.com": "0", pods: "2", "requests.cpu": "1500m" });
  });
});
