import { describe, expect, it } from "vitest";
import { capabilitiesBaseline, capabilitiesRestricted } from "./checks-capabilities.js";
import { c, outcome, runCheck } from "./checks.testkit.js";
import type { PodSpecJson } from "./check.js";

describe("capabilities_baseline", () => {
  const table: [string, PodSpecJson, unknown][] = [
    ["default set", { containers: [c("a", { capabilities: { add: ["CHOWN", "NET_BIND_SERVICE", "SYS_CHROOT"] } })] }, "allowed"],
    [
      "non-default, distinct and sorted",
      {
        containers: [
          c("a", { capabilities: { add: ["SYS_ADMIN", "CHOWN"] } }),
          c("b", { capabilities: { add: ["NET_RAW", "SYS_ADMIN"] } }),
          c("c", { capabilities: { drop: ["ALL"] } }),
        ],
      },
      ["non-default capabilities", 'containers "a", "b" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add'],
    ],
  ];
  it.each(table)("%s", (_n, spec, want) => expect(outcome(runCheck(capabilitiesBaseline, 34, spec))).toEqual(want));
});

describe("capabilities_restricted", () => {
  const table: [string, PodSpecJson, unknown][] = [
    ["drop ALL, add NET_BIND_SERVICE", { containers: [c("a", { capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] } })] }, "allowed"],
    ["no security context", { containers: [c("a"), c("b", {})] }, ["unrestricted capabilities", 'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]']],
    [
      "missing drop and forbidden adds",
      {
        containers: [
          c("a", { capabilities: { drop: ["NET_RAW"] } }),
          c("b", { capabilities: { drop: ["ALL"], add: ["SYS_TIME", "CHOWN"] } }),
          c("d", { capabilities: { add: ["CHOWN"] } }),
        ],
      },
      [
        "unrestricted capabilities",
        'containers "a", "d" must set securityContext.capabilities.drop=["ALL"]; containers "b", "d" must not include "CHOWN", "SYS_TIME" in securityContext.capabilities.add',
      ],
    ],
  ];
  it.each(table)("%s", (_n, spec, want) => expect(outcome(runCheck(capabilitiesRestricted, 34, spec))).toEqual(want));

  it("exempts Windows pods from v1.25", () => {
    const win: PodSpecJson = { os: { name: "windows" }, containers: [c("a")] };
    expect(outcome(runCheck(capabilitiesRestricted, 25, win))).toBe("allowed");
    expect(outcome(runCheck(capabilitiesRestricted, 24, win))).not.toBe("allowed");
  });
});
