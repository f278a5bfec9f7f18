import { describe, expect, it } from "vitest";
import { selectorString, setValueAt, valueAt } from "./scale-paths.js";

describe("scale paths", () => {
  it("reads and writes dot paths, creating objects on the way without touching the originals", () => {
    const spec = { other: 1 };
    const obj: Record<string, unknown> = { spec };
    expect(valueAt(obj, ".spec.other")).toBe(1);
    expect(valueAt(obj, ".status.replicas")).toBeUndefined();
    setValueAt(obj, ".spec.replicas", 3);
    setValueAt(obj, ".status.deep.replicas", 2);
    expect(obj).toEqual({ spec: { other: 1, replicas: 3 }, status: { deep: { replicas: 2 } } });
    expect(spec).toEqual({ other: 1 });
  });

  it("writes a selector as a string whether it is one, a LabelSelector or a label map", () => {
    expect(selectorString("app=web")).toBe("app=web");
    expect(selectorString({ matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "Exists" }] })).toBe("app=web,tier");
    expect(selectorString({ app: "web", tier: "front" })).toBe("app=web,tier=front");
    expect(selectorString(undefined)).toBe("");
    expect(selectorString({})).toBe("");
  });
});
