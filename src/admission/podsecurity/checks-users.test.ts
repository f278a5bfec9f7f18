import { describe, expect, it } from "vitest";
import { runAsNonRoot, runAsUser } from "./checks-users.js";
import { c, outcome, runCheck } from "./checks.testkit.js";
import type { PodSpecJson } from "./check.js";

describe("runAsNonRoot", () => {
  const table: [string, PodSpecJson, unknown][] = [
    ["pod true", { securityContext: { runAsNonRoot: true }, containers: [c("a"), c("b", { runAsNonRoot: true })] }, "allowed"],
    ["every container true", { containers: [c("a", { runAsNonRoot: true })] }, "allowed"],
    [
      "explicit false wins over missing",
      { securityContext: { runAsNonRoot: false }, containers: [c("a"), c("b", { runAsNonRoot: false }), c("d", { runAsNonRoot: true })] },
      ["runAsNonRoot != true", 'pod and container "b" must not set securityContext.runAsNonRoot=false'],
    ],
    [
      "pod unset, containers fall through",
      { containers: [c("a"), c("b", {}), c("d", { runAsNonRoot: true })] },
      ["runAsNonRoot != true", 'pod or containers "a", "b" must set securityContext.runAsNonRoot=true'],
    ],
  ];
  it.each(table)("%s", (_n, spec, want) => expect(outcome(runCheck(runAsNonRoot, 34, spec))).toEqual(want));

  it("relaxes for hostUsers=false only when the server does", () => {
    const spec: PodSpecJson = { hostUsers: false, containers: [c("a")] };
    expect(outcome(runCheck(runAsNonRoot, 34, spec))).not.toBe("allowed");
    expect(outcome(runCheck(runAsNonRoot, 34, spec, {}, { relaxForUserNamespacePods: true }))).toBe("allowed");
  });
});

describe("runAsUser", () => {
  const table: [string, PodSpecJson, unknown][] = [
    ["non-zero", { securityContext: { runAsUser: 1000 }, containers: [c("a", { runAsUser: 1 })] }, "allowed"],
    ["pod 0", { securityContext: { runAsUser: 0 }, containers: [c("a")] }, ["runAsUser=0", "pod must not set runAsUser=0"]],
    [
      "pod and containers 0",
      { securityContext: { runAsUser: 0 }, containers: [c("a", { runAsUser: 0 }), c("b", { runAsUser: 0 }), c("d", { runAsUser: 2 })] },
      ["runAsUser=0", 'pod and containers "a", "b" must not set runAsUser=0'],
    ],
  ];
  it.each(table)("%s", (_n, spec, want) => expect(outcome(runCheck(runAsUser, 34, spec))).toEqual(want));

  it("starts at policy v1.23", () => {
    expect(() => runCheck(runAsUser, 22, {})).toThrow();
  });
});
