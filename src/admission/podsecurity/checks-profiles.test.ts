import { describe, expect, it } from "vitest";
import { appArmorProfile, seccompProfileBaseline, seccompProfileRestricted, seLinuxOptions } from "./checks-profiles.js";
import { c, outcome, runCheck } from "./checks.testkit.js";
import type { PodMetaJson, PodSpecJson } from "./check.js";

describe("appArmorProfile", () => {
  const table: [string, PodMetaJson, PodSpecJson, unknown][] = [
    [
      "allowed fields and annotations",
      { annotations: { "container.apparmor.security.beta.kubernetes.io/a": "runtime/default", "container.apparmor.security.beta.kubernetes.io/b": "localhost/p" } },
      { securityContext: { appArmorProfile: { type: "RuntimeDefault" } }, containers: [c("a", { appArmorProfile: { type: "Localhost" } })] },
      "allowed",
    ],
    [
      "pod Unconfined",
      {},
      { securityContext: { appArmorProfile: { type: "Unconfined" } }, containers: [c("a")] },
      ["forbidden AppArmor profile", 'pod must not set AppArmor profile type to "Unconfined"'],
    ],
    [
      "pod, containers and annotations",
      { annotations: { "container.apparmor.security.beta.kubernetes.io/b": "unconfined", "container.apparmor.security.beta.kubernetes.io/a": "foo" } },
      { securityContext: { appArmorProfile: { type: "Unconfined" } }, containers: [c("a", { appArmorProfile: { type: "Unconfined" } }), c("b", { appArmorProfile: { type: "Other" } })] },
      [
        "forbidden AppArmor profiles",
        'pod and containers "a", "b" and annotations must not set AppArmor profile type to "Other", "Unconfined", "container.apparmor.security.beta.kubernetes.io/a="foo"", "container.apparmor.security.beta.kubernetes.io/b="unconfined""',
      ],
    ],
    [
      "one annotation",
      { annotations: { "container.apparmor.security.beta.kubernetes.io/a": "unconfined" } },
      { containers: [c("a")] },
      ["forbidden AppArmor profile", 'annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/a="unconfined""'],
    ],
  ];
  it.each(table)("%s", (_n, meta, spec, want) => expect(outcome(runCheck(appArmorProfile, 34, spec, meta))).toEqual(want));
});

describe("seLinuxOptions", () => {
  const okContainers = [
    c("a", { seLinuxOptions: { type: "container_t" } }),
    c("b", { seLinuxOptions: { type: "container_init_t" } }),
    c("c", { seLinuxOptions: { type: "container_kvm_t" } }),
  ];
  const table: [string, number, PodSpecJson, unknown][] = [
    ["allowed types", 34, { securityContext: { seLinuxOptions: { level: "s0:c1" } }, containers: [...okContainers, c("d", { seLinuxOptions: { type: "container_engine_t" } })] }, "allowed"],
    [
      "invalid pod and containers",
      34,
      {
        securityContext: { seLinuxOptions: { type: "foo", user: "bar", role: "baz" } },
        containers: [...okContainers, c("e", { seLinuxOptions: { type: "bar" } }), c("f", { seLinuxOptions: { user: "bar" } }), c("g", { seLinuxOptions: { role: "baz" } })],
      },
      ["seLinuxOptions", 'pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: types "bar", "foo"; user may not be set; role may not be set'],
    ],
    ["user only", 34, { securityContext: { seLinuxOptions: { user: "bad" } } }, ["seLinuxOptions", "pod set forbidden securityContext.seLinuxOptions: user may not be set"]],
    ["role only", 34, { securityContext: { seLinuxOptions: { role: "bad" } } }, ["seLinuxOptions", "pod set forbidden securityContext.seLinuxOptions: role may not be set"]],
    [
      "container_engine_t before v1.31",
      30,
      { containers: [c("d", { seLinuxOptions: { type: "container_engine_t" } })] },
      ["seLinuxOptions", 'container "d" set forbidden securityContext.seLinuxOptions: type "container_engine_t"'],
    ],
  ];
  it.each(table)("%s", (_n, minor, spec, want) => expect(outcome(runCheck(seLinuxOptions, minor, spec))).toEqual(want));
});

describe("seccompProfile_baseline", () => {
  it("reads the alpha annotations before v1.19", () => {
    const meta: PodMetaJson = {
      annotations: {
        "seccomp.security.alpha.kubernetes.io/pod": "unconfined",
        "container.seccomp.security.alpha.kubernetes.io/a": "runtime/default",
        "container.seccomp.security.alpha.kubernetes.io/b": "unconfined",
        "container.seccomp.security.alpha.kubernetes.io/zz": "unconfined",
      },
    };
    expect(outcome(runCheck(seccompProfileBaseline, 18, { containers: [c("a"), c("b")] }, meta))).toEqual([
      "seccompProfile",
      'forbidden annotations container.seccomp.security.alpha.kubernetes.io/b="unconfined", seccomp.security.alpha.kubernetes.io/pod="unconfined"',
    ]);
    expect(outcome(runCheck(seccompProfileBaseline, 18, { containers: [c("a")] }, { annotations: { "seccomp.security.alpha.kubernetes.io/pod": "docker/default" } }))).toBe("allowed");
  });
  const table: [string, PodSpecJson, unknown][] = [
    ["unset", { containers: [c("a")] }, "allowed"],
    ["pod RuntimeDefault", { securityContext: { seccompProfile: { type: "RuntimeDefault" } }, containers: [c("a", { seccompProfile: { type: "Localhost" } })] }, "allowed"],
    [
      "pod and containers Unconfined",
      { securityContext: { seccompProfile: { type: "Unconfined" } }, containers: [c("a"), c("c", { seccompProfile: { type: "Unconfined" } }), c("d", { seccompProfile: { type: "Unconfined" } })] },
      ["seccompProfile", 'pod and containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"'],
    ],
  ];
  it.each(table)("%s", (_n, spec, want) => expect(outcome(runCheck(seccompProfileBaseline, 34, spec))).toEqual(want));
});

describe("seccompProfile_restricted", () => {
  const table: [string, PodSpecJson, unknown][] = [
    ["pod RuntimeDefault", { securityContext: { seccompProfile: { type: "RuntimeDefault" } }, containers: [c("a")] }, "allowed"],
    ["every container", { containers: [c("a", { seccompProfile: { type: "Localhost" } })] }, "allowed"],
    [
      "pod unset",
      { containers: [c("a"), c("b", { seccompProfile: { type: "RuntimeDefault" } }), c("d", {})] },
      ["seccompProfile", 'pod or containers "a", "d" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"'],
    ],
    [
      "explicit bad values first",
      { containers: [c("a"), c("b", { seccompProfile: { type: "Unconfined" } })] },
      ["seccompProfile", 'container "b" must not set securityContext.seccompProfile.type to "Unconfined"'],
    ],
  ];
  it.each(table)("%s", (_n, spec, want) => expect(outcome(runCheck(seccompProfileRestricted, 34, spec))).toEqual(want));

  it("exempts Windows pods from v1.25", () => {
    expect(outcome(runCheck(seccompProfileRestricted, 25, { os: { name: "windows" }, containers: [c("a")] }))).toBe("allowed");
    expect(outcome(runCheck(seccompProfileRestricted, 24, { os: { name: "windows" }, containers: [c("a")] }))).not.toBe("allowed");
  });
});
