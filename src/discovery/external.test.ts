import { describe, expect, it } from "vitest";
import { externalGroups, mergeOrder, type ExternalGroupVersion } from "./external.js";

const gv = (group: string, version: string, groupPriorityMinimum: number, versionPriority: number): ExternalGroupVersion => ({
  group,
  version,
  groupPriorityMinimum,
  versionPriority,
  name: `${version}.${group}`,
  discovery: { version },
});

describe("external groups in discovery", () => {
  it("versions by versionPriority, then kube-aware order; groups by their best groupPriorityMinimum, then APIService name", () => {
    const groups = externalGroups(
      [gv("b.example.com", "v1beta1", 100, 10), gv("b.example.com", "v1", 100, 10), gv("b.example.com", "v2alpha1", 100, 20), gv("a.example.com", "v1", 100, 5), gv("metrics.k8s.io", "v1beta1", 20000, 1)],
      new Set(),
    );
    expect(groups.map((g) => [g.name, g.versions.map((v) => v.version)])).toEqual([
      ["metrics.k8s.io", ["v1beta1"]],
      ["a.example.com", ["v1"]],
      ["b.example.com", ["v2alpha1", "v1", "v1beta1"]],
    ]);
  });

  it("a group served here keeps its own versions; the core group is never external", () => {
    expect(externalGroups([gv("apps", "v9", 1, 1), gv("", "v2", 1, 1)], new Set(["apps"]))).toEqual([]);
  });

  it("external groups go before the first local group of lower priority", () => {
    const local = [{ name: "apiregistration.k8s.io" }, { name: "apps" }, { name: "batch" }, { name: "crd.example.com" }];
    const priority: Record<string, number> = { "apiregistration.k8s.io": Number.MAX_SAFE_INTEGER, apps: 17800, batch: 17400, "crd.example.com": 1000 };
    const ext = externalGroups([gv("high.example.com", "v1", 17500, 1), gv("low.example.com", "v1", 500, 1), gv("top.example.com", "v1", 20000, 1)], new Set());
    expect(mergeOrder(local, ext, (g) => priority[g]).map((g) => g.name)).toEqual(["apiregistration.k8s.io", "top.example.com", "apps", "high.example.com", "batch", "crd.example.com", "low.example.com"]);
  });
});
