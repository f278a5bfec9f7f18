// Strategic merge patch as kubectl's client-side apply sends it, over a live Deployment with
// server defaults.
import { describe, expect, it } from "vitest";
import { LAST_APPLIED, liveAfterFirstApply, podSpec, smp } from "./strategic-merge-patch.testkit.js";

describe("kubectl client-side apply flow", () => {
  const live1 = liveAfterFirstApply();
  // Second apply: only the image changed; this is the patch kubectl 1.32 sends.
  const patch2 = {
    metadata: { annotations: { [LAST_APPLIED]: '{"v":2}\n' } },
    spec: { template: { spec: { "$setElementOrder/containers": [{ name: "app" }], containers: [{ image: "nginx:1.26", name: "app" }] } } },
  };
  // Third apply: port 8080 and env B removed from the manifest.
  const patch3 = {
    metadata: { annotations: { [LAST_APPLIED]: '{"v":3}\n' } },
    spec: {
      template: {
        spec: {
          "$setElementOrder/containers": [{ name: "app" }],
          containers: [
            {
              "$setElementOrder/env": [{ name: "A" }],
              "$setElementOrder/ports": [{ containerPort: 80 }],
              env: [{ $patch: "delete", name: "B" }],
              name: "app",
              ports: [{ $patch: "delete", containerPort: 8080 }],
            },
          ],
        },
      },
    },
  };

  it("second apply changes the image and keeps every server-side field", () => {
    const live2 = smp(live1, patch2);
    const expected = liveAfterFirstApply() as any;
    expected.metadata.annotations[LAST_APPLIED] = '{"v":2}\n';
    expected.spec.template.spec.containers[0].image = "nginx:1.26";
    expect(live2).toEqual(expected);
    expect(live1).toEqual(liveAfterFirstApply());
    expect(patch2.spec.template.spec["$setElementOrder/containers"]).toEqual([{ name: "app" }]);
  });

  it("third apply deletes the port and env entry by merge key", () => {
    const live3 = smp(smp(live1, patch2), patch3);
    const expected = liveAfterFirstApply() as any;
    expected.metadata.annotations[LAST_APPLIED] = '{"v":3}\n';
    const container = expected.spec.template.spec.containers[0];
    container.image = "nginx:1.26";
    container.ports = [{ containerPort: 80, protocol: "TCP" }];
    container.env = [{ name: "A", value: "1" }];
    expect(live3).toEqual(expected);
  });

  it("apply adding a sidecar keeps the manifest order from $setElementOrder", () => {
    const out = smp(
      live1,
      podSpec({ "$setElementOrder/containers": [{ name: "app" }, { name: "sidecar" }], containers: [{ image: "busybox", name: "sidecar" }] }),
    ) as any;
    expect(out.spec.template.spec.containers.map((c: any) => c.name)).toEqual(["app", "sidecar"]);
    expect(out.spec.template.spec.containers[1]).toEqual({ name: "sidecar", image: "busybox" });
  });

  it("$setElementOrder reorders server items and puts server-only items by server position", () => {
    const live = podSpec({ containers: [{ name: "a" }, { name: "b" }, { name: "c", image: "x" }] });
    const out = smp(live, podSpec({ "$setElementOrder/containers": [{ name: "c" }, { name: "a" }] })) as any;
    expect(out.spec.template.spec.containers).toEqual([{ name: "b" }, { name: "c", image: "x" }, { name: "a" }]);
  });
});
