import { describe, expect, it } from "vitest";
import { allowPrivilegeEscalation, privileged, procMount } from "./checks-privilege.js";
import { c, outcome, runCheck } from "./checks.testkit.js";
import type { PodSpecJson } from "./check.js";

describe("privileged", () => {
  const table: [string, PodSpecJson, unknown][] = [
    ["unset and false", { containers: [c("a"), c("b", { privileged: false })] }, "allowed"],
    [
      "init, regular and ephemeral containers",
      { initContainers: [c("i", { privileged: true })], containers: [c("a", { privileged: true }), c("b")], ephemeralContainers: [c("e", { privileged: true })] },
      ["privileged", 'containers "i", "a", "e" must not set securityContext.privileged=true'],
    ],
    ["one", { containers: [c("a", { privileged: true })] }, ["privileged", 'container "a" must not set securityContext.privileged=true']],
  ];
  it.each(table)("%s", (_n, spec, want) => expect(outcome(runCheck(privileged, 34, spec))).toEqual(want));
});

describe("procMount", () => {
  const table: [string, PodSpecJson, unknown][] = [
    ["unset and Default", { containers: [c("a"), c("b", { procMount: "Default" })] }, "allowed"],
    [
      "Unmasked",
      { containers: [c("a", { procMount: "Unmasked" }), c("b", { procMount: "Other" }), c("d", { procMount: "Unmasked" })] },
      ["procMount", 'containers "a", "b", "d" must not set securityContext.procMount to "Other", "Unmasked"'],
    ],
  ];
  it.each(table)("%s", (_n, spec, want) => expect(outcome(runCheck(procMount, 34, spec))).toEqual(want));

  it("lets user-namespaced pods through only when the server relaxes the policy for them", () => {
    const spec: PodSpecJson = { hostUsers: false, containers: [c("a", { procMount: "Unmasked" })] };
    expect(outcome(runCheck(procMount, 34, spec))).not.toBe("allowed");
    expect(outcome(runCheck(procMount, 34, spec, {}, { relaxForUserNamespacePods: true }))).toBe("allowed");
  });
});

describe("allowPrivilegeEscalation", () => {
  const multi: PodSpecJson = {
    containers: [c("a"), c("b", {}), c("c", { allowPrivilegeEscalation: true }), c("d", { allowPrivilegeEscalation: false })],
  };
  it("requires false on every container", () => {
    expect(outcome(runCheck(allowPrivilegeEscalation, 34, multi))).toEqual([
      "allowPrivilegeEscalation != false",
      'containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false',
    ]);
  });
  it("exempts Windows pods from v1.25 on, not before", () => {
    const win: PodSpecJson = { os: { name: "windows" }, containers: [c("a")] };
    expect(outcome(runCheck(allowPrivilegeEscalation, 25, win))).toBe("allowed");
    expect(outcome(runCheck(allowPrivilegeEscalation, 24, win))).toEqual(["allowPrivilegeEscalation != false", 'container "a" must set securityContext.allowPrivilegeEscalation=false']);
    expect(outcome(runCheck(allowPrivilegeEscalation, 34, { os: { name: "linux" }, containers: [c("a")] }))).not.toBe("allowed");
  });
  it("starts at policy v1.8", () => {
    expect(() => runCheck(allowPrivilegeEscalation, 7, multi)).toThrow();
  });
});
