import { describe, expect, it } from "vitest";
import { Graph, type PodReferences } from "./graph.js";
import { podReferences, pvKubeletSecrets } from "./references.js";

const refs = (p: Partial<PodReferences>): PodReferences => ({ serviceAccount: "", secrets: [], configMaps: [], pvcs: [], resourceClaims: [], ...p });

describe("node authorizer graph", () => {
  it("two nodes and their pods: each node reaches only what its own pods use", () => {
    const g = new Graph();
    g.setPod("ns", "pa", "a", refs({ secrets: ["sa", "shared"], configMaps: ["ca"], serviceAccount: "default" }));
    g.setPod("ns", "pb", "b", refs({ secrets: ["sb", "shared"] }));
    expect(g.pathToNode("a", "secret", "ns", "sa").ok).toBe(true);
    expect(g.pathToNode("a", "secret", "ns", "shared").ok).toBe(true);
    expect(g.pathToNode("b", "secret", "ns", "shared").ok).toBe(true);
    expect(g.pathToNode("b", "secret", "ns", "sa").ok).toBe(false);
    expect(g.pathToNode("a", "secret", "ns", "sb").ok).toBe(false);
    expect(g.pathToNode("a", "configmap", "ns", "ca").ok).toBe(true);
    expect(g.pathToNode("a", "serviceAccount", "ns", "default").ok).toBe(true);
    expect(g.pathToNode("b", "serviceAccount", "ns", "default").ok).toBe(false);
    expect(g.pathToNode("a", "pod", "ns", "pa").ok).toBe(true);
    expect(g.pathToNode("a", "pod", "ns", "pb").ok).toBe(false);
    // Same name, other namespace: unrelated.
    expect(g.pathToNode("a", "secret", "other", "sa").ok).toBe(false);
  });

  it("explains why not (unknown node, unknown object, no path)", () => {
    const g = new Graph();
    g.setPod("ns", "pa", "a", refs({ secrets: ["s"] }));
    g.setPod("ns", "pb", "b", refs({ secrets: ["t"] }));
    expect(g.pathToNode("c", "secret", "ns", "s")).toEqual({ ok: false, why: "unknown node 'c' cannot get secret ns/s" });
    expect(g.pathToNode("a", "secret", "ns", "x")).toEqual({ ok: false, why: "node 'a' cannot get unknown secret ns/x" });
    expect(g.pathToNode("a", "secret", "ns", "t")).toEqual({ ok: false, why: "node 'a' cannot get secret ns/t, no relationship to this object was found in the node authorizer graph" });
  });

  it("deleting or rebinding a pod takes the access away; orphans go with it", () => {
    const g = new Graph();
    g.setPod("ns", "p", "a", refs({ secrets: ["s"], pvcs: ["c"] }));
    expect(g.pathToNode("a", "secret", "ns", "s").ok).toBe(true);
    g.setPod("ns", "p", "b", refs({ secrets: ["s"], pvcs: ["c"] })); // rebound (a new pod of the same name)
    expect(g.pathToNode("a", "secret", "ns", "s").ok).toBe(false);
    expect(g.pathToNode("b", "secret", "ns", "s").ok).toBe(true);
    g.deletePod("ns", "p");
    expect(g.pathToNode("b", "secret", "ns", "s").ok).toBe(false);
    expect(g.size).toBe(0);
  });

  it("a secret shared by two pods stays reachable from the one left", () => {
    const g = new Graph();
    g.setPod("ns", "p1", "a", refs({ secrets: ["s"] }));
    g.setPod("ns", "p2", "a", refs({ secrets: ["s"] }));
    g.deletePod("ns", "p1");
    expect(g.pathToNode("a", "secret", "ns", "s").ok).toBe(true);
    g.deletePod("ns", "p2");
    expect(g.vertex("secret", "ns", "s")).toBeUndefined();
  });

  it("a mirror pod grants nothing but itself", () => {
    const g = new Graph();
    g.setPod("ns", "m", "a", undefined);
    expect(g.pathToNode("a", "pod", "ns", "m").ok).toBe(true);
    expect(g.vertex("secret", "ns", "s")).toBeUndefined();
  });

  it("pod -> pvc <- pv <- secret: the PV and its kubelet-visible secret through the claim", () => {
    const g = new Graph();
    g.setPV("pv1", { namespace: "ns", name: "c" }, [{ namespace: "ns", name: "pvsecret" }]);
    expect(g.pathToNode("a", "pv", "", "pv1").ok).toBe(false); // no pod yet
    g.setPod("ns", "p", "a", refs({ pvcs: ["c"] }));
    expect(g.pathToNode("a", "pvc", "ns", "c").ok).toBe(true);
    expect(g.pathToNode("a", "pv", "", "pv1").ok).toBe(true);
    expect(g.pathToNode("a", "secret", "ns", "pvsecret").ok).toBe(true);
    expect(g.pathToNode("b", "pv", "", "pv1").ok).toBe(false);
    g.setPV("pv1", undefined, []); // released
    expect(g.pathToNode("a", "pv", "", "pv1").ok).toBe(false);
    expect(g.pathToNode("a", "secret", "ns", "pvsecret").ok).toBe(false);
    expect(g.pathToNode("a", "pvc", "ns", "c").ok).toBe(true);
  });

  it("volume attachments and resource slices belong to their node", () => {
    const g = new Graph();
    g.setNodeOwned("volumeattachment", "", "va", "a");
    g.setNodeOwned("resourceslice", "", "rs", "b");
    expect(g.pathToNode("a", "volumeattachment", "", "va").ok).toBe(true);
    expect(g.pathToNode("b", "volumeattachment", "", "va").ok).toBe(false);
    expect(g.pathToNode("b", "resourceslice", "", "rs").ok).toBe(true);
    g.setNodeOwned("volumeattachment", "", "va", "b");
    expect(g.pathToNode("a", "volumeattachment", "", "va").ok).toBe(false);
    expect(g.pathToNode("b", "volumeattachment", "", "va").ok).toBe(true);
    g.deleteNodeOwned("volumeattachment", "", "va");
    expect(g.vertex("volumeattachment", "", "va")).toBeUndefined();
  });

  it("destination index above the threshold: a secret used by many pods on many nodes", () => {
    const g = new Graph(4);
    for (let i = 0; i < 10; i++) g.setPod("ns", `p${i}`, `n${i % 5}`, refs({ secrets: ["common"] }));
    const s = g.vertex("secret", "ns", "common")!;
    expect(g.hasDestinationIndex(s)).toBe(true);
    for (let n = 0; n < 5; n++) expect(g.pathToNode(`n${n}`, "secret", "ns", "common").ok).toBe(true);
    g.setPod("ns", "other", "z", refs({}));
    expect(g.pathToNode("z", "secret", "ns", "common").ok).toBe(false);
    // Remove n0's pods (p0, p5): n0 loses access, others keep it.
    g.deletePod("ns", "p0");
    expect(g.pathToNode("n0", "secret", "ns", "common").ok).toBe(true);
    g.deletePod("ns", "p5");
    expect(g.pathToNode("n0", "secret", "ns", "common").ok).toBe(false);
    expect(g.pathToNode("n1", "secret", "ns", "common").ok).toBe(true);
    for (let i = 0; i < 10; i++) g.deletePod("ns", `p${i}`);
    expect(g.vertex("secret", "ns", "common")).toBeUndefined();
  });
});

describe("pod and PV references", () => {
  it("finds every secret, config map, claim, service account and resource claim of a pod", () => {
    const pod = {
      metadata: { name: "web", namespace: "ns" },
      spec: {
        nodeName: "a",
        serviceAccountName: "runner",
        imagePullSecrets: [{ name: "pull" }],
        initContainers: [{ name: "i", envFrom: [{ secretRef: { name: "init-env" } }] }],
        containers: [
          {
            name: "c",
            envFrom: [{ configMapRef: { name: "cm-env" } }, { secretRef: { name: "sec-env" } }],
            env: [
              { name: "A", valueFrom: { secretKeyRef: { name: "sec-key", key: "k" } } },
              { name: "B", valueFrom: { configMapKeyRef: { name: "cm-key", key: "k" } } },
              { name: "C", value: "plain" },
            ],
          },
        ],
        ephemeralContainers: [{ name: "e", env: [{ name: "D", valueFrom: { secretKeyRef: { name: "eph", key: "k" } } }] }],
        volumes: [
          { name: "s", secret: { secretName: "vol-secret" } },
          { name: "m", configMap: { name: "vol-cm" } },
          { name: "p", projected: { sources: [{ secret: { name: "proj-secret" } }, { configMap: { name: "proj-cm" } }, { serviceAccountToken: { path: "t" } }] } },
          { name: "d", persistentVolumeClaim: { claimName: "data" } },
          { name: "scratch", ephemeral: { volumeClaimTemplate: { spec: {} } } },
          { name: "csi", csi: { driver: "x", nodePublishSecretRef: { name: "csi-secret" } } },
        ],
        resourceClaims: [{ name: "gpu", resourceClaimName: "gpu-claim" }, { name: "tpl", resourceClaimTemplateName: "t" }, { name: "pending", resourceClaimTemplateName: "t" }],
      },
      status: { resourceClaimStatuses: [{ name: "tpl", resourceClaimName: "web-tpl-abc" }] },
    };
    const r = podReferences(pod);
    expect(r.serviceAccount).toBe("runner");
    expect([...r.secrets].sort()).toEqual(["csi-secret", "eph", "init-env", "proj-secret", "pull", "sec-env", "sec-key", "vol-secret"]);
    expect([...r.configMaps].sort()).toEqual(["cm-env", "cm-key", "proj-cm", "vol-cm"]);
    expect(r.pvcs).toEqual(["data", "web-scratch"]);
    expect(r.resourceClaims).toEqual(["gpu-claim", "web-tpl-abc"]);
  });

  it("PV secrets the kubelet reads: in their own namespace or the claim's; CSI controller secrets excluded", () => {
    const pv = {
      metadata: { name: "pv" },
      spec: {
        claimRef: { namespace: "ns", name: "c" },
        csi: {
          driver: "x",
          volumeHandle: "h",
          nodeStageSecretRef: { name: "stage", namespace: "sys" },
          nodePublishSecretRef: { name: "publish", namespace: "ns" },
          controllerPublishSecretRef: { name: "ctrl", namespace: "sys" },
          controllerExpandSecretRef: { name: "ctrl-exp", namespace: "sys" },
          nodeExpandSecretRef: { name: "node-exp", namespace: "sys" },
        },
      },
    };
    expect(pvKubeletSecrets(pv)).toEqual([
      { namespace: "ns", name: "publish" },
      { namespace: "sys", name: "stage" },
      { namespace: "sys", name: "node-exp" },
    ]);
    expect(pvKubeletSecrets({ spec: { claimRef: { namespace: "ns", name: "c" }, rbd: { secretRef: { name: "ceph" } } } })).toEqual([{ namespace: "ns", name: "ceph" }]);
  });
});
