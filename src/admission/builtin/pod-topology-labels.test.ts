import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import { fakeParts, fakeWorld, typeFor } from "./parts.testkit.js";
import { podTopologyLabels } from "./pod-topology-labels.js";

describe("PodTopologyLabels", () => {
  const node: KObject = { metadata: { name: "n1", labels: { "topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/region": "r1", "topology.kubernetes.io/other": "x", custom: "y" } } };
  const bind = async (enabled: boolean, labels?: Record<string, string>) => {
    const binding: KObject = { metadata: { name: "p", ...(labels ? { labels } : {}) }, target: { kind: "Node", name: "n1" } };
    const p = podTopologyLabels(fakeParts(fakeWorld({ "/nodes": [node] })), enabled);
    await p.admit!(admissionAttributes({ operation: "CREATE", type: typeFor("", "pods"), namespace: "ns", name: "p", subresource: "binding", dryRun: false, object: binding }));
    return binding.metadata.labels;
  };
  it("copies only the zone and region labels of the target node onto a binding, when its gate is on", async () => {
    expect(await bind(true)).toEqual({ "topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/region": "r1" });
    expect(await bind(true, { "topology.kubernetes.io/zone": "mine" })).toEqual({ "topology.kubernetes.io/zone": "mine", "topology.kubernetes.io/region": "r1" });
    expect(await bind(false)).toBeUndefined();
  });

  it("labels a pod created already bound to a node, its own labels winning", async () => {
    const p = podTopologyLabels(fakeParts(fakeWorld({ "/nodes": [node] })), true);
    const pod: KObject = { metadata: { name: "p", labels: { "topology.kubernetes.io/region": "mine" } }, spec: { nodeName: "n1", containers: [] } };
    await p.admit!(admissionAttributes({ operation: "CREATE", type: typeFor("", "pods"), namespace: "ns", name: "p", subresource: "", dryRun: false, object: pod }));
    expect(pod.metadata.labels).toEqual({ "topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/region": "mine" });
  });
});
