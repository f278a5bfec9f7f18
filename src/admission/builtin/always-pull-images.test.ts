import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import { alwaysPullImages } from "./always-pull-images.js";
import { podsType } from "./parts.testkit.js";

const pod = (image: string, policy = "IfNotPresent"): KObject => ({ metadata: { name: "p" }, spec: { containers: [{ name: "c", image, imagePullPolicy: policy }], initContainers: [{ name: "i", image: "init", imagePullPolicy: "Never" }] } });
const attrs = (object: KObject, oldObject?: KObject) => admissionAttributes({ operation: oldObject ? "UPDATE" : "CREATE", type: podsType, namespace: "ns", name: "p", subresource: "", dryRun: false, object, oldObject });

describe("AlwaysPullImages", () => {
  it("sets Always on every container of a new pod", () => {
    const p = pod("nginx");
    alwaysPullImages().admit!(attrs(p));
    expect((p.spec as any).containers[0].imagePullPolicy).toBe("Always");
    expect((p.spec as any).initContainers[0].imagePullPolicy).toBe("Always");
  });
  it("refuses a pod that still does not pull always, with upstream's field error", () => {
    expect(() => alwaysPullImages().validate!(attrs(pod("nginx")))).toThrow('pods "p" is forbidden: spec.initContainers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always"');
  });
  it("leaves updates without new images alone", () => {
    const p = pod("nginx");
    alwaysPullImages().admit!(attrs(p, pod("nginx")));
    expect((p.spec as any).containers[0].imagePullPolicy).toBe("IfNotPresent");
    const q = pod("nginx:2");
    alwaysPullImages().admit!(attrs(q, pod("nginx")));
    expect((q.spec as any).containers[0].imagePullPolicy).toBe("Always");
  });
});
