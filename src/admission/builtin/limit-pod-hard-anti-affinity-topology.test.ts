import { describe, expect, it } from "vitest";
import { admissionAttributes } from "../attributes.testkit.js";
import { limitPodHardAntiAffinityTopology } from "./limit-pod-hard-anti-affinity-topology.js";
import { podsType } from "./parts.testkit.js";

const check = (topologyKey: string) =>
  limitPodHardAntiAffinityTopology().validate!(
    admissionAttributes({
      operation: "CREATE",
      type: podsType,
      namespace: "ns",
      name: "p",
      subresource: "",
      dryRun: false,
      object: { metadata: { name: "p" }, spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: {}, topologyKey }] } } } },
    }),
  );

describe("LimitPodHardAntiAffinityTopology", () => {
  it("allows only the hostname topology key in required anti-affinity", () => {
    expect(() => check("kubernetes.io/hostname")).not.toThrow();
    expect(() => check("topology.kubernetes.io/zone")).toThrow(
      'pods "p" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.kubernetes.io/zone but only key kubernetes.io/hostname is allowed',
    );
  });
});
