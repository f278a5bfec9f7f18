import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import { defaultTolerationSeconds } from "./default-toleration-seconds.js";
import { podsType } from "./parts.testkit.js";

const admitPod = (tolerations: unknown[] | undefined, flags = {}, subresource = "") => {
  const object: KObject = { metadata: { name: "p" }, spec: { containers: [], ...(tolerations ? { tolerations } : {}) } };
  defaultTolerationSeconds(flags).admit!(admissionAttributes({ operation: "CREATE", type: podsType, namespace: "ns", name: "p", subresource, dryRun: false, object }));
  return (object.spec as any).tolerations;
};

describe("DefaultTolerationSeconds", () => {
  it("adds the not-ready and unreachable NoExecute tolerations with the flags' seconds", () => {
    expect(admitPod(undefined)).toEqual([
      { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    ]);
    expect(admitPod([], { defaultNotReadyTolerationSeconds: 60, defaultUnreachableTolerationSeconds: 90 }).map((t: any) => t.tolerationSeconds)).toEqual([60, 90]);
  });

  it("adds nothing a toleration already covers (same key or any key, NoExecute or any effect)", () => {
    const own = { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 };
    expect(admitPod([own])).toEqual([own, expect.objectContaining({ key: "node.kubernetes.io/unreachable" })]);
    expect(admitPod([{ operator: "Exists" }])).toEqual([{ operator: "Exists" }]);
    expect(admitPod([{ key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoSchedule" }])).toHaveLength(3);
    expect(admitPod(undefined, {}, "status")).toBeUndefined();
  });
});
