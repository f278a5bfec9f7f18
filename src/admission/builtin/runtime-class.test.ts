import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import { fakeParts, fakeWorld, podsType } from "./parts.testkit.js";
import { runtimeClassPlugin } from "./runtime-class.js";

const rc = (name: string, extra: Record<string, unknown>): KObject => ({ metadata: { name }, handler: name, ...extra });
const plugin = runtimeClassPlugin(
  fakeParts(
    fakeWorld({
      "node.k8s.io/runtimeclasses": [
        rc("kata", { overhead: { podFixed: { cpu: "250m", memory: "120Mi" } }, scheduling: { nodeSelector: { sandbox: "kata" }, tolerations: [{ key: "sandbox", operator: "Exists" }] } }),
        rc("plain", {}),
      ],
    }),
  ),
);
const run = async (spec: Record<string, unknown>) => {
  const a = admissionAttributes({ operation: "CREATE", type: podsType, namespace: "ns", name: "p", subresource: "", dryRun: false, object: { metadata: { name: "p" }, spec: { containers: [], ...spec } } });
  await plugin.admit!(a);
  await plugin.validate!(a);
  return (a.object as any).spec;
};

describe("RuntimeClass admission", () => {
  it("sets the class's overhead, node selector and tolerations", async () => {
    const spec = await run({ runtimeClassName: "kata", nodeSelector: { disk: "ssd" }, tolerations: [{ key: "a", operator: "Exists" }] });
    expect(spec.overhead).toEqual({ cpu: "250m", memory: "120Mi" });
    expect(spec.nodeSelector).toEqual({ disk: "ssd", sandbox: "kata" });
    expect(spec.tolerations).toEqual([{ key: "a", operator: "Exists" }, { key: "sandbox", operator: "Exists" }]);
  });

  it("rejects a missing class, conflicting selectors and overheads with upstream's messages", async () => {
    await expect(run({ runtimeClassName: "ghost" })).rejects.toMatchObject({ code: 403, message: 'pods "p" is forbidden: pod rejected: RuntimeClass "ghost" not found' });
    await expect(run({ runtimeClassName: "kata", nodeSelector: { sandbox: "gvisor" } })).rejects.toMatchObject({
      message: 'pods "p" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = kata; pod.spec.nodeSelector[sandbox] = gvisor',
    });
    await expect(run({ runtimeClassName: "kata", overhead: { cpu: "1" } })).rejects.toMatchObject({ message: "pods \"p\" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead" });
    await expect(run({ runtimeClassName: "kata", overhead: { cpu: "0.25", memory: "120Mi" } })).resolves.toBeDefined();
    await expect(run({ runtimeClassName: "plain", overhead: { cpu: "1" } })).rejects.toMatchObject({ message: 'pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead' });
    await expect(run({ overhead: { cpu: "1" } })).rejects.toMatchObject({ code: 403 });
  });
});
