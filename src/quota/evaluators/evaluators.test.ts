import { describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { resourceListJson } from "../resource-list.js";
import { podEvaluator } from "./pods.js";
import { pvcEvaluator } from "./persistentvolumeclaims.js";
import { serviceEvaluator } from "./services.js";
import { evaluatorFor } from "./registry.js";
import { claimUsage } from "./resourceclaims.js";

const pod = (spec: object, extra: object = {}) => ({ metadata: { name: "p", namespace: "ns" }, spec, ...extra }) as KObject;
const c = (name: string, requests?: object, limits?: object, restartPolicy?: string) => ({ name, image: "x", resources: { requests, limits }, ...(restartPolicy ? { restartPolicy } : {}) });
const usage = (o: KObject, now = Date.now()) => resourceListJson(podEvaluator.usage(o, now));

describe("pods", () => {
  it("sums containers, takes the largest init container beside the sidecars before it, adds sidecars and overhead", () => {
    const p = pod({
      initContainers: [c("init1", { cpu: "2" }), c("side", { cpu: "100m", memory: "64Mi" }, undefined, "Always"), c("init2", { cpu: "1500m" })],
      containers: [c("a", { cpu: "200m", memory: "128Mi" }, { memory: "256Mi" }), c("b", { cpu: "300m" })],
      overhead: { cpu: "50m", memory: "10Mi" },
    });
    expect(usage(p)).toEqual({
      "count/pods": "1",
      pods: "1",
      cpu: "2050m", // max(containers 500m + sidecar 100m = 600m, init1 2, init2 1.5 + sidecar 0.1 = 1.6) + 50m overhead
      "requests.cpu": "2050m",
      memory: "202Mi",
      "requests.memory": "202Mi",
      "limits.memory": "266Mi", // overhead only where a limit is set
    });
  });

  it("counts hugepages and extended resources; terminal and long-deleted pods keep only count/pods", () => {
    const p = pod({ containers: [c("a", { "hugepages-2Mi": "4Mi", "example.com/gpu": "2" })] });
    expect(usage(p)).toEqual({ "count/pods": "1", pods: "1", "hugepages-2Mi": "4Mi", "requests.hugepages-2Mi": "4Mi", "requests.example.com/gpu": "2" });
    expect(usage(pod({ containers: [c("a", { cpu: "1" })] }, { status: { phase: "Failed" } }))).toEqual({ "count/pods": "1" });
    const deleted = pod({ containers: [c("a", { cpu: "1" })] });
    deleted.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
    deleted.metadata.deletionGracePeriodSeconds = 30;
    expect(usage(deleted, Date.parse("2026-01-01T00:00:31Z"))).toEqual({ "count/pods": "1" });
    expect(usage(deleted, Date.parse("2026-01-01T00:00:29Z"))).toMatchObject({ pods: "1", cpu: "1" });
  });

  it("pod-level resources replace the containers' cpu and memory", () => {
    const p = pod({ resources: { requests: { cpu: "1" }, limits: { cpu: "2" } }, containers: [c("a", { cpu: "100m", memory: "1Gi" })] });
    expect(usage(p)).toMatchObject({ cpu: "1", "limits.cpu": "2", memory: "1Gi" });
  });

  it("requires cpu/memory of every container a quota limits, with upstream's message", () => {
    const p = pod({ initContainers: [c("i", { cpu: "1" })], containers: [c("a", { cpu: "1", memory: "1Gi" }), c("b")] });
    expect(podEvaluator.constraints(["requests.cpu", "limits.memory", "requests.memory", "pods", "requests.ephemeral-storage"], p)).toBe(
      "must specify limits.memory for: a,b,i; requests.cpu for: b; requests.memory for: b,i",
    );
    expect(podEvaluator.constraints(["pods", "requests.storage"], p)).toBeUndefined();
  });

  it("matches scopes: Terminating, BestEffort, PriorityClass operators, CrossNamespacePodAffinity", () => {
    const be = pod({ containers: [c("a")], activeDeadlineSeconds: 30 });
    const burst = pod({ containers: [c("a", { cpu: "1" })], priorityClassName: "high" });
    const m = (p: KObject, scopeName: string, operator = "Exists", values?: string[]) => podEvaluator.matchesScope({ scopeName, operator, values }, p);
    expect([m(be, "Terminating"), m(be, "NotTerminating"), m(burst, "Terminating")]).toEqual([true, false, false]);
    expect([m(be, "BestEffort"), m(burst, "BestEffort"), m(burst, "NotBestEffort")]).toEqual([true, false, true]);
    expect([m(burst, "PriorityClass"), m(be, "PriorityClass")]).toEqual([true, false]);
    expect([m(burst, "PriorityClass", "In", ["high"]), m(be, "PriorityClass", "In", ["high"])]).toEqual([true, false]);
    expect([m(burst, "PriorityClass", "NotIn", ["high"]), m(be, "PriorityClass", "NotIn", ["high"])]).toEqual([false, true]);
    expect([m(burst, "PriorityClass", "DoesNotExist"), m(be, "PriorityClass", "DoesNotExist")]).toEqual([false, true]);
    const cross = pod({ containers: [c("a")], affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { namespaceSelector: {}, topologyKey: "k" } }] } } });
    expect([m(cross, "CrossNamespacePodAffinity"), m(be, "CrossNamespacePodAffinity")]).toEqual([true, false]);
    expect(() => m(burst, "PriorityClass", "Gt", ["1"])).toThrow('"Gt" is not a valid scope selector operator');
  });

  it("handles create and resize, never other subresources", () => {
    expect(podEvaluator.handles({ operation: "CREATE", subresource: "" })).toBe(true);
    expect(podEvaluator.handles({ operation: "UPDATE", subresource: "" })).toBe(false);
    expect(podEvaluator.handles({ operation: "UPDATE", subresource: "resize" })).toBe(true);
    expect(podEvaluator.handles({ operation: "CREATE", subresource: "eviction" })).toBe(false);
  });
});

describe("services, claims, object counts", () => {
  it("counts node ports and load balancers by type", () => {
    const svc = (spec: object) => resourceListJson(serviceEvaluator.usage({ metadata: { name: "s" }, spec } as KObject, 0));
    expect(svc({ type: "ClusterIP", ports: [{ port: 80 }] })).toEqual({ "count/services": "1", services: "1", "services.loadbalancers": "0", "services.nodeports": "0" });
    expect(svc({ type: "NodePort", ports: [{ port: 80 }, { port: 81 }] })).toMatchObject({ "services.nodeports": "2" });
    expect(svc({ type: "LoadBalancer", allocateLoadBalancerNodePorts: false, ports: [{ port: 80, nodePort: 30001 }, { port: 81 }] })).toMatchObject({
      "services.loadbalancers": "1",
      "services.nodeports": "1",
    });
  });

  it("charges claims by class (the beta annotation first), at the larger of request and allocation, in whole bytes", () => {
    const claim = { metadata: { name: "c", annotations: { "volume.beta.kubernetes.io/storage-class": "gold" } }, spec: { storageClassName: "silver", resources: { requests: { storage: "1500m" } } } } as unknown as KObject;
    expect(resourceListJson(pvcEvaluator.usage(claim, 0))).toEqual({
      "count/persistentvolumeclaims": "1",
      persistentvolumeclaims: "1",
      "gold.storageclass.storage.k8s.io/persistentvolumeclaims": "1",
      "requests.storage": "2",
      "gold.storageclass.storage.k8s.io/requests.storage": "2",
    });
    const grown = { metadata: { name: "c" }, spec: { resources: { requests: { storage: "1Gi" } } }, status: { allocatedResources: { storage: "2Gi" } } } as unknown as KObject;
    expect(resourceListJson(pvcEvaluator.usage(grown, 0))).toMatchObject({ "requests.storage": "2Gi" });
    expect(pvcEvaluator.matchingResources(["bronze.storageclass.storage.k8s.io/requests.storage", "requests.storage", "pods", "count/persistentvolumeclaims"])).toEqual([
      "bronze.storageclass.storage.k8s.io/requests.storage",
      "requests.storage",
      "count/persistentvolumeclaims",
    ]);
  });

  it("matches the VolumeAttributesClass scope by the classes a claim names (wanted, current, target)", () => {
    const claim = (spec: object, status: object = {}) => ({ metadata: { name: "c" }, spec, status }) as unknown as KObject;
    const m = (o: KObject, operator: string, values?: string[]) => pvcEvaluator.matchesScope({ scopeName: "VolumeAttributesClass", operator, values }, o);
    const gold = claim({ volumeAttributesClassName: "gold" });
    const moving = claim({ volumeAttributesClassName: "silver" }, { currentVolumeAttributesClassName: "gold" });
    const none = claim({});
    expect([m(gold, "In", ["gold"]), m(moving, "In", ["gold"]), m(none, "In", ["gold"])]).toEqual([true, true, false]);
    expect([m(gold, "NotIn", ["gold"]), m(moving, "NotIn", ["gold"]), m(none, "NotIn", ["gold"])]).toEqual([false, true, true]);
    expect([m(gold, "Exists"), m(none, "Exists"), m(none, "DoesNotExist")]).toEqual([true, false, true]);
    expect(pvcEvaluator.matchesScope({ scopeName: "BestEffort", operator: "Exists" }, gold)).toBe(false);
  });

  it("gives every other type count/<resource>.<group>, the legacy names as aliases, and ignores events", () => {
    expect(evaluatorFor("example.com", "widgets")!.matchingResources(["count/widgets.example.com", "widgets"])).toEqual(["count/widgets.example.com"]);
    expect(evaluatorFor("", "configmaps")!.matchingResources(["configmaps", "count/configmaps"])).toEqual(["configmaps", "count/configmaps"]);
    expect(evaluatorFor("apps", "deployments")!.handles({ operation: "UPDATE", subresource: "" })).toBe(false);
    expect(evaluatorFor("", "events")).toBeUndefined();
  });
});

describe("resource claims", () => {
  it("counts devices per device class: exact counts, All as 32, the largest alternative of firstAvailable", () => {
    const claim = {
      metadata: { name: "c" },
      spec: {
        devices: {
          requests: [
            { name: "a", exactly: { deviceClassName: "gpu.example.com", allocationMode: "ExactCount", count: 2 } },
            { name: "b", exactly: { deviceClassName: "gpu.example.com" } },
            { name: "c", exactly: { deviceClassName: "nic.example.com", allocationMode: "All" } },
            { name: "d", firstAvailable: [{ name: "x", deviceClassName: "gpu.example.com", count: 4 }, { name: "y", deviceClassName: "gpu.example.com", count: 1 }, { name: "z", deviceClassName: "fpga.example.com" }] },
          ],
        },
      },
    } as unknown as KObject;
    expect(resourceListJson(claimUsage(claim))).toEqual({
      "count/resourceclaims.resource.k8s.io": "1",
      "fpga.example.com.deviceclass.resource.k8s.io/devices": "1",
      "gpu.example.com.deviceclass.resource.k8s.io/devices": "7",
      "nic.example.com.deviceclass.resource.k8s.io/devices": "32",
    });
    const e = evaluatorFor("resource.k8s.io", "resourceclaims")!;
    expect(e.matchingResources(["count/resourceclaims.resource.k8s.io", "gpu.example.com.deviceclass.resource.k8s.io/devices", "pods"])).toHaveLength(2);
    expect(e.handles({ operation: "UPDATE", subresource: "status" })).toBe(false);
  });
});
