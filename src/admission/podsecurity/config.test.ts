import { describe, expect, it } from "vitest";
import { lvString } from "./api.js";
import { defaultConfiguration, loadPodSecurityConfiguration } from "./config.js";

const doc = (body: Record<string, unknown>) => ({ apiVersion: "pod-security.admission.config.k8s.io/v1", kind: "PodSecurityConfiguration", ...body });

describe("PodSecurityConfiguration", () => {
  it("is all privileged without a configuration", () => {
    expect(loadPodSecurityConfiguration(undefined)).toBe(defaultConfiguration);
  });

  it("reads defaults and exemptions", () => {
    const cfg = loadPodSecurityConfiguration(
      doc({ defaults: { enforce: "baseline", "enforce-version": "v1.33", warn: "restricted" }, exemptions: { usernames: ["ci"], runtimeClasses: ["kata"], namespaces: ["kube-system"] } }),
    );
    expect(lvString(cfg.defaults.enforce)).toBe("baseline:v1.33");
    expect(lvString(cfg.defaults.warn)).toBe("restricted:latest");
    expect(lvString(cfg.defaults.audit)).toBe("privileged:latest");
    expect(cfg.exemptions).toEqual({ usernames: ["ci"], runtimeClasses: ["kata"], namespaces: ["kube-system"] });
  });

  it("accepts the older versions of the kind", () => {
    expect(() => loadPodSecurityConfiguration({ ...doc({}), apiVersion: "pod-security.admission.config.k8s.io/v1beta1" })).not.toThrow();
  });

  it("refuses invalid configuration at start", () => {
    expect(() => loadPodSecurityConfiguration(doc({ defaults: { enforce: "strict" } }))).toThrow(
      'PodSecurity invalid: defaults.enforce: Invalid value: "strict": must be one of privileged, baseline, restricted',
    );
    expect(() => loadPodSecurityConfiguration(doc({ exemptions: { namespaces: ["a", "a"], usernames: [""] } }))).toThrow(
      'PodSecurity invalid: [exemptions.namespaces[1]: Duplicate value: "a", exemptions.usernames[0]: Invalid value: "": must be non-empty]',
    );
    expect(() => loadPodSecurityConfiguration({ kind: "Other" })).toThrow(/PodSecurityConfiguration/);
  });
});
