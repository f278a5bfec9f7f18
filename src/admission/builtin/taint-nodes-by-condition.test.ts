import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import { typeFor } from "./parts.testkit.js";
import { taintNodesByCondition } from "./taint-nodes-by-condition.js";

describe("TaintNodesByCondition", () => {
  const admitNode = (spec: Record<string, unknown>) => {
    const object: KObject = { metadata: { name: "n" }, spec };
    taintNodesByCondition().admit!(admissionAttributes({ operation: "CREATE", type: typeFor("", "nodes", false), namespace: "", name: "n", subresource: "", dryRun: false, object }));
    return (object.spec as any).taints;
  };
  it("taints a new node not-ready:NoSchedule unless it already is", () => {
    expect(admitNode({})).toEqual([{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }]);
    const own = [{ key: "node.kubernetes.io/not-ready", value: "x", effect: "NoSchedule" }];
    expect(admitNode({ taints: own })).toEqual(own);
    expect(admitNode({ taints: [{ key: "a", effect: "NoExecute" }] })).toHaveLength(2);
  });
});
