import { describe, expect, it } from "vitest";
import { deletionConditions, emptyReport, mergeConditions } from "./namespace-conditions.js";

describe("namespace deletion conditions", () => {
  it("are all clear when nothing is left", () => {
    expect(deletionConditions(emptyReport())).toEqual([
      { type: "NamespaceDeletionDiscoveryFailure", status: "False", reason: "ResourcesDiscovered", message: "All resources successfully discovered" },
      { type: "NamespaceDeletionGroupVersionParsingFailure", status: "False", reason: "ParsedGroupVersions", message: "All legacy kube types successfully parsed" },
      { type: "NamespaceDeletionContentFailure", status: "False", reason: "ContentDeleted", message: "All content successfully deleted, may be waiting on finalization" },
      { type: "NamespaceContentRemaining", status: "False", reason: "ContentRemoved", message: "All content successfully removed" },
      { type: "NamespaceFinalizersRemaining", status: "False", reason: "ContentRemoved", message: "All content successfully removed" },
    ]);
  });

  it("name what remains and why, sorted", () => {
    const report = emptyReport();
    report.errors.push("b failed", "a failed");
    report.remainingByResource.set("pods.", 2).set("widgets.example.com", 1).set("secrets.", 0);
    report.remainingByFinalizer.set("z/hold", 1).set("a/hold", 3);
    const byType = Object.fromEntries(deletionConditions(report).map((c) => [c.type, c]));
    expect(byType["NamespaceDeletionContentFailure"]).toEqual({ type: "NamespaceDeletionContentFailure", status: "True", reason: "ContentDeletionFailed", message: "Failed to delete all resource types, 2 remaining: a failed, b failed" });
    expect(byType["NamespaceContentRemaining"]).toEqual({ type: "NamespaceContentRemaining", status: "True", reason: "SomeResourcesRemain", message: "Some resources are remaining: pods. has 2 resource instances, widgets.example.com has 1 resource instances" });
    expect(byType["NamespaceFinalizersRemaining"]).toEqual({ type: "NamespaceFinalizersRemaining", status: "True", reason: "SomeFinalizerRemain", message: "Some finalizers are remaining: a/hold in 3 resource instances, z/hold in 1 resource instances" });
    expect(byType["NamespaceDeletionDiscoveryFailure"]!.status).toBe("False");
  });

  it("merge: appended once, rewritten on change, transition time only with the status", () => {
    const stuck = emptyReport();
    stuck.remainingByResource.set("configmaps.", 1);
    stuck.remainingByFinalizer.set("example.com/hold", 1);
    const other = { type: "Custom", status: "True" as const, reason: "Mine", message: "kept", lastTransitionTime: "t0" };
    const first = mergeConditions([other], deletionConditions(stuck), "t1")!;
    expect(first.map((c) => c.type)).toEqual(["Custom", "NamespaceDeletionDiscoveryFailure", "NamespaceDeletionGroupVersionParsingFailure", "NamespaceDeletionContentFailure", "NamespaceContentRemaining", "NamespaceFinalizersRemaining"]);
    expect(first[0]).toEqual(other);
    expect(mergeConditions(first, deletionConditions(stuck), "t2")).toBeUndefined();

    stuck.remainingByFinalizer.set("example.com/hold", 2);
    const counted = mergeConditions(first, deletionConditions(stuck), "t3")!;
    const fin = counted.find((c) => c.type === "NamespaceFinalizersRemaining")!;
    expect(fin).toMatchObject({ status: "True", lastTransitionTime: "t1", message: "Some finalizers are remaining: example.com/hold in 2 resource instances" });

    const cleared = mergeConditions(counted, deletionConditions(emptyReport()), "t4")!;
    expect(cleared.find((c) => c.type === "NamespaceFinalizersRemaining")).toMatchObject({ status: "False", lastTransitionTime: "t4", reason: "ContentRemoved" });
    expect(cleared.find((c) => c.type === "NamespaceDeletionDiscoveryFailure")).toMatchObject({ lastTransitionTime: "t1" });
  });
});
