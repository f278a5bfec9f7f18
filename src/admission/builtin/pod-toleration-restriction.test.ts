import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import { fakeParts, fakeWorld, podsType } from "./parts.testkit.js";
import { decodeTolerations, podTolerationRestriction } from "./pod-toleration-restriction.js";

const dedicated = { key: "dedicated", operator: "Exists", effect: "NoSchedule" };
const ns = (name: string, annotations?: Record<string, string>): KObject => ({ metadata: { name, ...(annotations ? { annotations } : {}) } });
const plugin = podTolerationRestriction(
  fakeParts(
    fakeWorld({
      "/namespaces": [
        ns("plain"),
        ns("team", { "scheduler.alpha.kubernetes.io/defaultTolerations": JSON.stringify([dedicated]), "scheduler.alpha.kubernetes.io/tolerationsWhitelist": JSON.stringify([dedicated]) }),
        ns("garbled", { "scheduler.alpha.kubernetes.io/defaultTolerations": '[{"key": 5}]' }),
      ],
    }),
  ),
  { default: [], whitelist: [{ key: "cluster-ok", operator: "Exists" }] },
);
const run = async (namespace: string, spec: Record<string, unknown>) => {
  const a = admissionAttributes({ operation: "CREATE", type: podsType, namespace, name: "p", subresource: "", dryRun: false, object: { metadata: { name: "p" }, spec: { containers: [{ name: "c" }], ...spec } } });
  await plugin.admit!(a);
  await plugin.validate!(a);
  return (a.object as any).spec.tolerations;
};

describe("PodTolerationRestriction", () => {
  it("adds the namespace's default tolerations, and memory pressure for pods that are not BestEffort", async () => {
    expect(await run("team", {})).toEqual([dedicated]);
    await expect(run("team", { containers: [{ name: "c", resources: { requests: { cpu: "1" } } }] })).rejects.toMatchObject({ code: 500 });
  });
  it("refuses tolerations outside the namespace's whitelist, else the cluster's, as upstream words it", async () => {
    await expect(run("team", { tolerations: [{ key: "other", operator: "Exists" }] })).rejects.toMatchObject({
      code: 500,
      reason: "",
      message: "pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist",
    });
    await expect(run("plain", { tolerations: [{ key: "other", operator: "Exists" }] })).rejects.toMatchObject({
      message: "pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist",
    });
    expect(await run("plain", { tolerations: [{ key: "cluster-ok", operator: "Exists", effect: "NoSchedule" }] })).toHaveLength(1);
  });
  it("fails a pod whose namespace's annotation does not decode into tolerations with the decoder's words (a 500 with no reason)", async () => {
    await expect(run("garbled", {})).rejects.toMatchObject({ code: 500, reason: "", message: "json: cannot unmarshal number into Go struct field Toleration.key of type string" });
    const refusal = (text: string) => {
      const d = decodeTolerations(text);
      return "error" in d ? d.error : undefined;
    };
    expect(refusal("[{")).toBe("unexpected end of JSON input");
    expect(refusal('{"key":"a"}')).toBe("json: cannot unmarshal object into Go value of type []v1.Toleration");
    expect(refusal('[{"key":"a"},"b",{"tolerationSeconds":"x"}]')).toBe("json: cannot unmarshal string into Go value of type v1.Toleration");
    expect(refusal('[{"KEY":"a","tolerationSeconds":30}]')).toBeUndefined();
    expect(refusal("null")).toBeUndefined();
  });
});
