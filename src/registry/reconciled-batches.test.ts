import { describe, expect, it } from "vitest";
import { ReconciledBatches, type ReconciledBatchesData } from "./reconciled-batches.js";

const stored = new Map([
  ["clusterroles /admin", { uid: "u1", resourceVersion: "10" }],
  ["clusterrolebindings /system:discovery", { uid: "u2", resourceVersion: "11" }],
]);
const lookup = (resource: string, key: string) => stored.get(`${resource} ${key}`);

describe("ReconciledBatches", () => {
  it("holds a batch while every object recorded is stored with the same uid and resourceVersion", () => {
    const r = new ReconciledBatches();
    expect(r.unchanged("rbac", lookup)).toBeUndefined();
    r.record("rbac", [
      ["clusterroles", "/admin", "u1", "10"],
      ["clusterrolebindings", "/system:discovery", "u2", "11"],
    ]);
    expect(r.changed).toBe(true);
    const again = new ReconciledBatches(JSON.parse(JSON.stringify(r)) as ReconciledBatchesData);
    expect(again.unchanged("rbac", lookup)).toBe(2);
    expect(again.unchanged("other", lookup)).toBeUndefined();
    // The same record again changes nothing to write.
    again.record("rbac", [
      ["clusterroles", "/admin", "u1", "10"],
      ["clusterrolebindings", "/system:discovery", "u2", "11"],
    ]);
    expect(again.changed).toBe(false);
    // Written since (a new resourceVersion), or deleted and made again (a new uid), or gone.
    for (const changed of [{ uid: "u1", resourceVersion: "12" }, { uid: "u9", resourceVersion: "10" }, undefined]) {
      const look = (resource: string, key: string) => (key === "/admin" ? changed : lookup(resource, key));
      expect(again.unchanged("rbac", look)).toBeUndefined();
    }
  });

  it("reads anything but the shape it writes as no record", () => {
    for (const data of [5, "x", { rbac: "x" }, { rbac: {} }, { rbac: [["clusterroles", "/admin"]] }, { rbac: [{}] }, { rbac: [] }]) {
      expect(new ReconciledBatches(data as unknown as ReconciledBatchesData).unchanged("rbac", lookup)).toBeUndefined();
    }
  });
});
