import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { admissionAttributes } from "../attributes.testkit.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { limitRanger } from "./limit-ranger.js";
import { fakeParts, fakeWorld, podsType, typeFor } from "./parts.testkit.js";

const lr = (limits: unknown[]): KObject => ({ metadata: { name: "lr", namespace: "ns" }, spec: { limits } });
const pod = (containers: unknown[], extra: Record<string, unknown> = {}): KObject => ({ metadata: { name: "p" }, spec: { containers, ...extra } });
const c = (name: string, resources?: unknown) => ({ name, image: "x", ...(resources ? { resources } : {}) });

function setup(ranges: KObject[]) {
  const world = fakeWorld({ "/limitranges": ranges });
  return { world, plugin: limitRanger(fakeParts(world)) };
}
async function run(plugin: ReturnType<typeof setup>["plugin"], object: KObject, a: Partial<AdmissionAttributes> = {}) {
  const attrs = admissionAttributes({ operation: "CREATE", type: podsType, namespace: "ns", name: "p", subresource: "", dryRun: false, object, ...a });
  await plugin.admit!(attrs);
  await plugin.validate!(attrs);
  return attrs.object as any;
}

describe("LimitRanger", () => {
  it("defaults requests and limits of containers and init containers, and says so in the annotation", async () => {
    const { plugin } = setup([lr([{ type: "Container", default: { cpu: "500m", memory: "256Mi" }, defaultRequest: { cpu: "100m", memory: "128Mi" } }])]);
    const p = await run(plugin, pod([c("a"), c("b", { requests: { cpu: "200m" } })], { initContainers: [c("i")] }));
    expect(p.spec.containers[0].resources).toEqual({ limits: { cpu: "500m", memory: "256Mi" }, requests: { cpu: "100m", memory: "128Mi" } });
    expect(p.spec.containers[1].resources).toEqual({ requests: { cpu: "200m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } });
    expect(p.metadata.annotations["kubernetes.io/limit-ranger"]).toBe(
      "LimitRanger plugin set: cpu, memory request for container a; cpu, memory limit for container a; memory request for container b; cpu, memory limit for container b; cpu, memory request for init container i; cpu, memory limit for init container i",
    );
  });

  it("bounds containers by min, max and the limit/request ratio, with upstream's messages", async () => {
    const { plugin } = setup([lr([{ type: "Container", max: { cpu: "1" }, min: { memory: "64Mi" }, maxLimitRequestRatio: { cpu: "2" } }])]);
    await expect(run(plugin, pod([c("a", { limits: { cpu: "2", memory: "1Gi" }, requests: { cpu: "1500m", memory: "1Gi" } })]))).rejects.toMatchObject({
      code: 403,
      message: 'pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 2',
    });
    await expect(run(plugin, pod([c("a", { limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "250m", memory: "32Mi" } })]))).rejects.toMatchObject({
      message: 'pods "p" is forbidden: [minimum memory usage per Container is 64Mi, but request is 32Mi, cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000]',
    });
    await expect(run(plugin, pod([c("a", { requests: { memory: "128Mi" } })]))).rejects.toMatchObject({
      message: 'pods "p" is forbidden: [maximum cpu usage per Container is 1.  No limit is specified, cpu max limit to request ratio per Container is 2, but no request is specified or request is 0]',
    });
    await expect(run(plugin, pod([c("a", { limits: { cpu: "1" }, requests: { cpu: "500m", memory: "64Mi" } })]))).resolves.toBeDefined();
  });

  it("bounds the pod's totals by Pod items", async () => {
    const { plugin } = setup([lr([{ type: "Pod", max: { memory: "1Gi" } }])]);
    const twoHalves = [c("a", { limits: { memory: "768Mi" } }), c("b", { limits: { memory: "512Mi" } })];
    await expect(run(plugin, pod(twoHalves))).rejects.toMatchObject({ message: 'pods "p" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 1280Mi' });
    await expect(run(plugin, pod([c("a", { limits: { memory: "512Mi" } })]))).resolves.toBeDefined();
    // Pod-level resources stand for the pod's totals.
    await expect(run(plugin, pod([c("a", { limits: { memory: "512Mi" } })], { resources: { limits: { memory: "2Gi" } } }))).rejects.toMatchObject({
      message: 'pods "p" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 2Gi',
    });
  });

  it("bounds claims' storage requests, and leaves pod updates alone", async () => {
    const { plugin } = setup([lr([{ type: "PersistentVolumeClaim", min: { storage: "1Gi" }, max: { storage: "10Gi" } }])]);
    const claim = (storage: string): KObject => ({ metadata: { name: "c" }, spec: { resources: { requests: { storage } } } });
    const pvcs = typeFor("", "persistentvolumeclaims");
    await expect(run(plugin, claim("20Gi"), { type: pvcs, name: "c" })).rejects.toMatchObject({
      message: 'persistentvolumeclaims "c" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi',
    });
    await expect(run(plugin, claim("500Mi"), { type: pvcs, name: "c", operation: "UPDATE", oldObject: claim("2Gi") })).rejects.toMatchObject({
      message: 'persistentvolumeclaims "c" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi',
    });
    await expect(run(plugin, claim("5Gi"), { type: pvcs, name: "c" })).resolves.toBeDefined();
  });

  it("reads the namespace's ranges live when the informer has none yet", async () => {
    const { plugin, world } = setup([lr([{ type: "Container", default: { cpu: "1" }, defaultRequest: { cpu: "1" } }])]);
    world.informerLags = new Set(["lr"]);
    const p = await run(plugin, pod([c("a")]));
    expect(p.spec.containers[0].resources).toEqual({ limits: { cpu: "1" }, requests: { cpu: "1" } });
    const u = await run(plugin, pod([c("b")]), { operation: "UPDATE", oldObject: pod([c("b")]) });
    expect(u.spec.containers[0].resources).toBeUndefined();
  });

  it("keeps a live read of a namespace without ranges for a while, instead of reading on every pod", async () => {
    const { plugin, world } = setup([]);
    await run(plugin, pod([c("a")]));
    await run(plugin, pod([c("b")]));
    const reads = world.liveReads.length;
    await run(plugin, pod([c("c")]));
    expect(world.liveReads.length).toBe(reads);
  });
});
