import { describe, expect, it } from "vitest";
import { latest, v1, type Level, type LevelVersion } from "./api.js";
import type { PodSpecJson } from "./check.js";
import { c } from "./checks.testkit.js";
import { aggregate, defaultChecks, forbiddenDetail, forbiddenReason, newEvaluator } from "./registry.js";

const evaluator = newEvaluator(defaultChecks, { relaxForUserNamespacePods: false });
const lv = (level: Level, version = latest): LevelVersion => ({ level, version });
const reasons = (l: LevelVersion, spec: PodSpecJson) => aggregate(evaluator.evaluate(l, {}, spec)).reasons;

/** Everything wrong at once: every check has something to say. */
const worst: PodSpecJson = {
  hostNetwork: true,
  securityContext: { sysctls: [{ name: "kernel.msgmax" }], seccompProfile: { type: "Unconfined" }, appArmorProfile: { type: "Unconfined" }, seLinuxOptions: { user: "u" } },
  volumes: [{ name: "h", hostPath: { path: "/" } }],
  containers: [
    c("c", { privileged: true, procMount: "Unmasked", runAsUser: 0, capabilities: { add: ["SYS_ADMIN"] }, windowsOptions: { hostProcess: true } }, {
      ports: [{ hostPort: 80 }],
      livenessProbe: { httpGet: { host: "h", port: 1 } },
    }),
  ],
};

describe("evaluator", () => {
  it("knows 1.34 as its newest policy version", () => {
    expect(evaluator.maxVersion).toEqual(v1(34));
  });

  it("runs nothing at privileged", () => {
    expect(evaluator.evaluate(lv("privileged"), {}, worst)).toEqual([]);
  });

  it("runs the baseline checks by ID at baseline", () => {
    expect(reasons(lv("baseline"), worst)).toEqual([
      "forbidden AppArmor profile",
      "non-default capabilities",
      "host namespaces",
      "hostPath volumes",
      "hostPort",
      "probe or lifecycle host",
      "privileged",
      "procMount",
      "seLinuxOptions",
      "seccompProfile",
      "forbidden sysctls",
      "hostProcess",
    ]);
  });

  it("runs baseline then restricted checks at restricted, without the baseline checks restricted ones supersede", () => {
    expect(reasons(lv("restricted"), worst)).toEqual([
      "forbidden AppArmor profile",
      "host namespaces",
      "hostPort",
      "probe or lifecycle host",
      "privileged",
      "procMount",
      "seLinuxOptions",
      "forbidden sysctls",
      "hostProcess",
      "allowPrivilegeEscalation != false",
      "unrestricted capabilities",
      "restricted volume types",
      "runAsNonRoot != true",
      "runAsUser=0",
      "seccompProfile",
    ]);
  });

  it("keeps a baseline check at versions older than the restricted check that supersedes it", () => {
    // capabilities_restricted starts at v1.22, seccompProfile_restricted at v1.19, runAsUser at v1.23.
    const at21 = reasons(lv("restricted", v1(21)), worst);
    expect(at21).toContain("non-default capabilities");
    expect(at21).not.toContain("unrestricted capabilities");
    expect(at21).not.toContain("runAsUser=0");
    expect(at21).not.toContain("probe or lifecycle host");
    expect(reasons(lv("restricted", v1(18)), worst).filter((r) => r === "seccompProfile")).toHaveLength(0);
  });

  it("evaluates versions newer than its newest as the newest", () => {
    expect(reasons(lv("restricted", v1(40)), worst)).toEqual(reasons(lv("restricted"), worst));
  });

  it("formats the aggregate as upstream: reasons with details in parentheses", () => {
    const a = aggregate(evaluator.evaluate(lv("baseline"), {}, { hostPID: true, containers: [c("c", { privileged: true })] }));
    expect(forbiddenReason(a)).toBe("host namespaces, privileged");
    expect(forbiddenDetail(a)).toBe('host namespaces (hostPID), privileged (container "c" must not set securityContext.privileged=true)');
  });

  it("lets a restricted-compliant pod carrying admission defaults through (token volume, tolerations, priority)", () => {
    const spec: PodSpecJson & Record<string, unknown> = {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      containers: [c("c", { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } }, { volumeMounts: [{ name: "kube-api-access-abcde", mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" }] })],
      volumes: [{ name: "kube-api-access-abcde", projected: { sources: [{ serviceAccountToken: { path: "token", expirationSeconds: 3607 } }, { configMap: { name: "kube-root-ca.crt" } }, { downwardAPI: {} }] } }],
      tolerations: [{ key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }],
      priority: 0,
      enableServiceLinks: true,
    };
    expect(aggregate(evaluator.evaluate(lv("restricted"), {}, spec)).allowed).toBe(true);
  });

  it("refuses malformed check lists", () => {
    const dup = defaultChecks[0]!;
    expect(() => newEvaluator([dup, dup], { relaxForUserNamespacePods: false })).toThrow(/multiple checks registered/);
    expect(() => newEvaluator([{ ...dup, versions: [...dup.versions].reverse() }], { relaxForUserNamespacePods: false })).toThrow(/strictly increasing/);
  });
});
