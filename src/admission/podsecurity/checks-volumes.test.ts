import { describe, expect, it } from "vitest";
import { hostPathVolumes, restrictedVolumes } from "./checks-volumes.js";
import { outcome, runCheck } from "./checks.testkit.js";
import type { PodSpecJson } from "./check.js";

describe("hostPathVolumes", () => {
  const table: [string, PodSpecJson, unknown][] = [
    ["none", { volumes: [{ name: "a", emptyDir: {} }] }, "allowed"],
    ["one", { volumes: [{ name: "a", hostPath: { path: "/" } }] }, ["hostPath volumes", 'volume "a"']],
    ["two", { volumes: [{ name: "a", hostPath: { path: "/" } }, { name: "b", emptyDir: {} }, { name: "c", hostPath: { path: "/x" } }] }, ["hostPath volumes", 'volumes "a", "c"']],
  ];
  it.each(table)("%s", (_n, spec, want) => expect(outcome(runCheck(hostPathVolumes, 34, spec))).toEqual(want));
});

describe("restrictedVolumes", () => {
  it("allows the core volume types, projected token volumes and image volumes", () => {
    const spec: PodSpecJson = {
      volumes: [
        { name: "a", configMap: { name: "x" } },
        { name: "b", csi: { driver: "d" } },
        { name: "c", downwardAPI: {} },
        { name: "d", emptyDir: {} },
        { name: "e", ephemeral: {} },
        { name: "f", persistentVolumeClaim: { claimName: "x" } },
        { name: "g", projected: { sources: [{ serviceAccountToken: { path: "token" } }] } },
        { name: "h", secret: { secretName: "x" } },
        { name: "i", image: { reference: "busybox" } },
      ],
    };
    expect(outcome(runCheck(restrictedVolumes, 34, spec))).toBe("allowed");
  });
  const table: [string, PodSpecJson, unknown][] = [
    ["one hostPath", { volumes: [{ name: "a", hostPath: { path: "/" } }] }, ["restricted volume types", 'volume "a" uses restricted volume type "hostPath"']],
    [
      "several, types distinct and sorted, unknown sources named unknown",
      {
        volumes: [
          { name: "b", nfs: {} },
          { name: "c", hostPath: { path: "/" } },
          { name: "d", emptyDir: {} },
          { name: "e", cephfs: {} },
          { name: "f", nfs: {} },
          { name: "g" },
        ],
      },
      ["restricted volume types", 'volumes "b", "c", "e", "f", "g" use restricted volume types "cephfs", "hostPath", "nfs", "unknown"'],
    ],
  ];
  it.each(table)("%s", (_n, spec, want) => expect(outcome(runCheck(restrictedVolumes, 34, spec))).toEqual(want));
});
