import { describe, expect, it } from "vitest";
import { crdStrategy } from "../../apiextensions/crd-strategy.js";
import { builtinResources } from "../../types/builtin-resources.js";
import { builtinTypeRegistry } from "../../types/register.js";
import { defaultStrategy } from "../../registry/strategy.js";
import { featureStrategiesOf } from "./feature-module.js";
import { serverFeatures } from "./index.js";

const featureStrategies = featureStrategiesOf(serverFeatures());

describe("strategies contributed by features", () => {
  it("each names a built-in resource (resource.group)", () => {
    const builtin = new Set(builtinResources.map((f) => (f.group ? `${f.resource}.${f.group}` : f.resource)));
    const contributed = Object.keys(featureStrategies);
    expect(contributed.sort()).toEqual([
      "customresourcedefinitions.apiextensions.k8s.io",
      "mutatingadmissionpolicies.admissionregistration.k8s.io",
      "mutatingadmissionpolicybindings.admissionregistration.k8s.io",
      "mutatingwebhookconfigurations.admissionregistration.k8s.io",
      "validatingadmissionpolicies.admissionregistration.k8s.io",
      "validatingadmissionpolicybindings.admissionregistration.k8s.io",
      "validatingwebhookconfigurations.admissionregistration.k8s.io",
    ]);
    for (const key of contributed) expect(builtin.has(key), key).toBe(true);
  });

  it("replace the default strategy of the types they own when the registry is built with them", () => {
    const all = () => true;
    expect(builtinTypeRegistry(all, featureStrategies).get("apiextensions.k8s.io", "v1", "customresourcedefinitions")?.strategy).toBe(crdStrategy);
    const webhooks = builtinTypeRegistry(all, featureStrategies).get("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations")?.strategy;
    expect(webhooks).toBe(featureStrategies["validatingwebhookconfigurations.admissionregistration.k8s.io"]);
    expect(builtinTypeRegistry(all).get("apiextensions.k8s.io", "v1", "customresourcedefinitions")?.strategy).toBe(defaultStrategy);
  });

  it("are owned by one feature each", () => {
    const owner = (name: string) => ({ name, strategies: { "customresourcedefinitions.apiextensions.k8s.io": crdStrategy } });
    expect(() => featureStrategiesOf([owner("a"), owner("b")])).toThrow("feature b: the strategy of customresourcedefinitions.apiextensions.k8s.io is already contributed");
  });
});
