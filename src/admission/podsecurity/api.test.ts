import { describe, expect, it } from "vitest";
import { compareLevels, latest, lvString, parseVersion, policyFromLabels, privilegedPolicy, v1 } from "./api.js";
import { formatFieldError } from "../../apimachinery/validation.js";

describe("policy labels", () => {
  it("defaults every mode to the configured policy", () => {
    expect(policyFromLabels(undefined, privilegedPolicy)).toEqual({ policy: privilegedPolicy, errors: [] });
  });

  it("reads levels and versions per mode", () => {
    const { policy, errors } = policyFromLabels(
      { "pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "v1.30", "pod-security.kubernetes.io/warn": "restricted" },
      privilegedPolicy,
    );
    expect(errors).toEqual([]);
    expect(lvString(policy.enforce)).toBe("baseline:v1.30");
    expect(lvString(policy.warn)).toBe("restricted:latest");
    expect(lvString(policy.audit)).toBe("privileged:latest");
  });

  it("fails closed for enforce, open for audit and warn, with upstream's field errors", () => {
    const { policy, errors } = policyFromLabels(
      {
        "pod-security.kubernetes.io/enforce": "strict",
        "pod-security.kubernetes.io/audit": "x",
        "pod-security.kubernetes.io/warn-version": "1.20",
      },
      privilegedPolicy,
    );
    expect(lvString(policy.enforce)).toBe("restricted:latest");
    expect(policy.audit.level).toBe("privileged");
    expect(errors.map(formatFieldError)).toEqual([
      'metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
      'metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "x": must be one of privileged, baseline, restricted',
      'metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.20": must be "latest" or "v1.x"',
    ]);
  });

  it("raises warn to a stricter enforce label when no warn label is set", () => {
    const enforce = "pod-security.kubernetes.io/enforce";
    const of = (labels: Record<string, string>, defaults = privilegedPolicy) => {
      const { policy } = policyFromLabels(labels, defaults);
      return lvString(policy.warn);
    };
    expect(of({ [enforce]: "restricted", [`${enforce}-version`]: "v1.30" })).toBe("restricted:v1.30");
    // A warn-version label keeps its version; a warn label keeps its level.
    expect(of({ [enforce]: "baseline", [`${enforce}-version`]: "v1.30", "pod-security.kubernetes.io/warn-version": "v1.29" })).toBe("baseline:v1.29");
    expect(of({ [enforce]: "restricted", "pod-security.kubernetes.io/warn": "privileged" })).toBe("privileged:latest");
    // Only a label that parsed, and only upward from the default.
    expect(of({ [enforce]: "strict" })).toBe("privileged:latest");
    expect(of({ [`${enforce}-version`]: "v1.30" })).toBe("privileged:latest");
    const warnRestricted = { ...privilegedPolicy, warn: { level: "restricted" as const, version: v1(28) } };
    expect(of({ [enforce]: "baseline" }, warnRestricted)).toBe("restricted:v1.28");
  });

  it("parses versions as upstream", () => {
    expect(parseVersion("latest")).toEqual({ version: latest });
    expect(parseVersion("v1.0")).toEqual({ version: v1(0) });
    expect(parseVersion("v1.34")).toEqual({ version: v1(34) });
    for (const bad of ["v1.01", "v2.1", "1.2", "v1.", "V1.2"]) expect(parseVersion(bad).error).toBe('must be "latest" or "v1.x"');
  });

  it("orders levels by strictness", () => {
    expect(compareLevels("restricted", "baseline")).toBe(1);
    expect(compareLevels("privileged", "baseline")).toBe(-1);
    expect(compareLevels("baseline", "baseline")).toBe(0);
  });
});
