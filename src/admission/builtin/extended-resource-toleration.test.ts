import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import { extendedResourceToleration, isExtendedResourceName } from "./extended-resource-toleration.js";
import { podsType } from "./parts.testkit.js";

describe("ExtendedResourceToleration", () => {
  it("knows extended resource names", () => {
    expect(isExtendedResourceName("example.com/gpu")).toBe(true);
    expect(isExtendedResourceName("cpu")).toBe(false);
    expect(isExtendedResourceName("kubernetes.io/foo")).toBe(false);
    expect(isExtendedResourceName("requests.example.com/gpu")).toBe(false);
  });
  it("tolerates the NoSchedule taint of each extended resource requested, once", () => {
    const object: KObject = {
      metadata: { name: "p" },
      spec: {
        containers: [{ name: "a", resources: { requests: { "nvidia.com/gpu": "1", cpu: "1" } } }, { name: "b", resources: { requests: { "example.com/fpga": "1", "nvidia.com/gpu": "1" } } }],
        tolerations: [{ key: "nvidia.com/gpu", operator: "Exists" }],
      },
    };
    extendedResourceToleration().admit!(admissionAttributes({ operation: "CREATE", type: podsType, namespace: "ns", name: "p", subresource: "", dryRun: false, object }));
    expect((object.spec as any).tolerations).toEqual([{ key: "nvidia.com/gpu", operator: "Exists" }, { key: "example.com/fpga", operator: "Exists", effect: "NoSchedule" }]);
  });
});
