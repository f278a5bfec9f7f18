// The built-in admission plugins on by default in 1.34, driven by real clients (kubectl and
// @kubernetes/client-node) against a real server: LimitRanger, ServiceAccount, Priority (and the
// system classes), DefaultTolerationSeconds (and its flags), TaintNodesByCondition,
// DefaultStorageClass, StorageObjectInUseProtection, PersistentVolumeClaimResize, RuntimeClass,
// DefaultIngressClass.
import * as k8s from "@kubernetes/client-node";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KapiServer } from "../src/index.js";
import { req, startTestServer, withCredentials, type TestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
const tokenPath = "/var/run/secrets/kubernetes.io/serviceaccount";
let server: KapiServer;
let s: TestServer;
let core: k8s.CoreV1Api;
let scheduling: k8s.SchedulingV1Api;
let storage: k8s.StorageV1Api;
let networking: k8s.NetworkingV1Api;
let node: k8s.NodeV1Api;

beforeAll(async () => {
  server = await startServer({ storage: "sqlite", dataDir: mkdtempSync(join(tmpdir(), "kapi-admission-builtin-")) });
  s = withCredentials(server);
  const kc = new k8s.KubeConfig();
  kc.loadFromString(server.kubeconfig);
  core = kc.makeApiClient(k8s.CoreV1Api);
  scheduling = kc.makeApiClient(k8s.SchedulingV1Api);
  storage = kc.makeApiClient(k8s.StorageV1Api);
  networking = kc.makeApiClient(k8s.NetworkingV1Api);
  node = kc.makeApiClient(k8s.NodeV1Api);
});
afterAll(async () => server?.stop());

const run = (args: string[], stdin?: string) => kubectl(kubectlBin!, server.kubeconfigPath!, args, stdin);
const container = (name = "c", resources?: k8s.V1ResourceRequirements): k8s.V1Container => ({ name, image: "nginx", ...(resources ? { resources } : {}) });
const podBody = (name: string, spec: Partial<k8s.V1PodSpec> = {}): k8s.V1Pod => ({ metadata: { name }, spec: { containers: [container()], ...spec } });

/** A dry-run create once the informers the plugins read have the last write (settle()), whose admitted object must satisfy `ok`. */
async function whenAdmitted(path: string, body: unknown, ok: (o: any) => boolean): Promise<any> {
  await server.settle();
  const r = await req(s, "POST", `${path}?dryRun=All`, { body });
  if (r.status !== 201 || !ok(r.json)) throw new Error(`not admitted as expected once settled: ${r.status} ${r.text}`);
  return r.json;
}

describe("ServiceAccount, Priority and DefaultTolerationSeconds on every pod", () => {
  it.skipIf(!kubectlBin)("kubectl apply of a namespace, a LimitRange and a pod at once: the pod waits for its default account and gets every default", async () => {
    const manifest = `apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: LimitRange
metadata:
  name: defaults
  namespace: shop
spec:
  limits:
  - type: Container
    default:
      cpu: 500m
      memory: 256Mi
    defaultRequest:
      cpu: 100m
      memory: 128Mi
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: shop
spec:
  initContainers:
  - name: init
    image: busybox
  containers:
  - name: app
    image: nginx
    resources:
      requests:
        cpu: 200m
`;
    const applied = await run(["apply", "-f", "-"], manifest);
    expect(applied.stderr).toBe("");
    expect(applied.stdout).toContain("pod/web created");
    const got = await run(["get", "pod", "web", "-n", "shop", "-o", "json"]);
    const pod = JSON.parse(got.stdout);
    // LimitRanger: defaults filled where the pod left them out, and the annotation says which.
    expect(pod.spec.containers[0].resources).toEqual({ requests: { cpu: "200m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } });
    expect(pod.spec.initContainers[0].resources).toEqual({ requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } });
    expect(pod.metadata.annotations["kubernetes.io/limit-ranger"]).toBe(
      "LimitRanger plugin set: memory request for container app; cpu, memory limit for container app; cpu, memory request for init container init; cpu, memory limit for init container init",
    );
    // ServiceAccount: the default account and its projected token, mounted everywhere.
    expect(pod.spec.serviceAccountName).toBe("default");
    expect(pod.spec.serviceAccount).toBe("default");
    const volume = pod.spec.volumes.find((v: any) => v.name.startsWith("kube-api-access-"));
    expect(volume.name).toMatch(/^kube-api-access-[a-z0-9]{5}$/);
    expect(volume.projected.sources.map((x: any) => Object.keys(x)[0])).toEqual(["serviceAccountToken", "configMap", "downwardAPI"]);
    for (const c of [...pod.spec.initContainers, ...pod.spec.containers]) expect(c.volumeMounts).toEqual([{ name: volume.name, readOnly: true, mountPath: tokenPath }]);
    // Priority and DefaultTolerationSeconds.
    expect(pod.spec.priority).toBe(0);
    expect(pod.spec.preemptionPolicy).toBe("PreemptLowerPriority");
    expect(pod.spec.tolerations).toEqual([
      { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    ]);
    // kubectl describe shows what upstream's shows for the token volume.
    const described = await run(["describe", "pod", "web", "-n", "shop"]);
    expect(described.stdout).toMatch(/Type:\s+Projected \(a volume that contains injected data from multiple sources\)/);
    expect(described.stdout).toMatch(/TokenExpirationSeconds:\s+3607/);
  });

  it.skipIf(!kubectlBin)("a pod naming a service account that does not exist is refused with upstream's message", async () => {
    const r = await run(["run", "ghostly", "--image=nginx", "--overrides", JSON.stringify({ spec: { serviceAccountName: "ghost" } })]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe('Error from server (Forbidden): pods "ghostly" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found');
  });

  it("automountServiceAccountToken: false on the account keeps the token out; image pull secrets come from the account", async () => {
    await core.createNamespacedServiceAccount({ namespace: "default", body: { metadata: { name: "quiet" }, automountServiceAccountToken: false, imagePullSecrets: [{ name: "registry" }] } });
    const pod = await core.createNamespacedPod({ namespace: "default", body: podBody("quiet-pod", { serviceAccountName: "quiet" }) });
    expect(pod.spec?.volumes).toBeUndefined();
    expect(pod.spec?.containers[0]!.volumeMounts).toBeUndefined();
    expect(pod.spec?.imagePullSecrets).toEqual([{ name: "registry" }]);
    // The deprecated serviceAccount field alone names the account; both are served.
    const legacy = await core.createNamespacedPod({ namespace: "default", body: podBody("legacy-pod", { serviceAccount: "quiet" }) });
    expect([legacy.spec?.serviceAccountName, legacy.spec?.serviceAccount]).toEqual(["quiet", "quiet"]);
    // The pod's own choice wins over the account's.
    const loud = await core.createNamespacedPod({ namespace: "default", body: podBody("loud-pod", { serviceAccountName: "quiet", automountServiceAccountToken: true }) });
    expect(loud.spec?.volumes?.map((v) => v.name)).toEqual([expect.stringMatching(/^kube-api-access-/)]);
  });

  it("an account enforcing mountable secrets refuses a pod mounting another secret", async () => {
    await core.createNamespacedServiceAccount({
      namespace: "default",
      body: { metadata: { name: "strict", annotations: { "kubernetes.io/enforce-mountable-secrets": "true" } }, secrets: [{ name: "allowed" }] },
    });
    const e = await core.createNamespacedPod({ namespace: "default", body: podBody("nosy", { serviceAccountName: "strict", volumes: [{ name: "s", secret: { secretName: "other" } }] }) }).catch((x) => x);
    expect(e.code).toBe(403);
    expect(JSON.parse(e.body).message).toBe('pods "nosy" is forbidden: volume with secret.secretName="other" is not allowed because service account strict does not reference that secret');
    await expect(core.createNamespacedPod({ namespace: "default", body: podBody("polite", { serviceAccountName: "strict", volumes: [{ name: "s", secret: { secretName: "allowed" } }] }) })).resolves.toBeDefined();
  });

  it("dry run admits fully and stores nothing", async () => {
    const r = await req(s, "POST", "/api/v1/namespaces/default/pods?dryRun=All", { body: podBody("dry") });
    expect(r.status).toBe(201);
    expect(r.json.spec.volumes[0].name).toMatch(/^kube-api-access-/);
    expect((await req(s, "GET", "/api/v1/namespaces/default/pods/dry")).status).toBe(404);
  });
});

describe("LimitRanger bounds", () => {
  it("a container over the LimitRange's max is refused with upstream's message, through client-node", async () => {
    await core.createNamespace({ body: { metadata: { name: "bounded" } } });
    await core.createNamespacedLimitRange({ namespace: "bounded", body: { metadata: { name: "max" }, spec: { limits: [{ type: "Container", max: { cpu: "1", memory: "1Gi" } }] } } });
    const big = podBody("big");
    big.spec!.containers = [container("c", { limits: { cpu: "2", memory: "512Mi" } })];
    const e = await core.createNamespacedPod({ namespace: "bounded", body: big }).catch((x) => x);
    expect(e.code).toBe(403);
    expect(JSON.parse(e.body)).toMatchObject({ reason: "Forbidden", message: 'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2' });
    // Defaults come from max when no default is given (LimitRange defaulting), so a bare pod fits.
    const bare = await core.createNamespacedPod({ namespace: "bounded", body: podBody("bare") });
    expect(bare.spec?.containers[0]!.resources).toEqual({ limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "1", memory: "1Gi" } });
  });
});

describe("Priority classes", () => {
  it("the two system classes exist from the start and resolve for pods", async () => {
    const classes = await scheduling.listPriorityClass();
    const system = Object.fromEntries(classes.items.filter((c) => c.metadata?.name?.startsWith("system-")).map((c) => [c.metadata!.name, c.value]));
    expect(system).toEqual({ "system-node-critical": 2000001000, "system-cluster-critical": 2000000000 });
    const pod = await core.createNamespacedPod({ namespace: "kube-system", body: podBody("critical", { priorityClassName: "system-node-critical" }) });
    expect(pod.spec?.priority).toBe(2000001000);
    expect(pod.spec?.preemptionPolicy).toBe("PreemptLowerPriority");
    const del = await scheduling.deletePriorityClass({ name: "system-cluster-critical" }).catch((x) => x);
    expect(del.code).toBe(403);
    expect(JSON.parse(del.body).message).toBe('priorityclasses.scheduling.k8s.io "system-cluster-critical" is forbidden: this is a system priority class and cannot be deleted');
  });

  it("a class's value and preemptionPolicy reach the pod; an unknown class and a second global default are refused", async () => {
    await scheduling.createPriorityClass({ body: { metadata: { name: "batch-low" }, value: 100, preemptionPolicy: "Never" } });
    const pod = await core.createNamespacedPod({ namespace: "default", body: podBody("batch", { priorityClassName: "batch-low" }) });
    expect(pod.spec).toMatchObject({ priority: 100, preemptionPolicy: "Never" });
    const unknown = await req(s, "POST", "/api/v1/namespaces/default/pods", { body: podBody("lost", { priorityClassName: "nope" }) });
    expect(unknown.status).toBe(403);
    expect(unknown.json.message).toBe('pods "lost" is forbidden: no PriorityClass with name nope was found');
    await scheduling.createPriorityClass({ body: { metadata: { name: "everyone" }, value: 10, globalDefault: true } });
    const second = await scheduling.createPriorityClass({ body: { metadata: { name: "everyone-else" }, value: 11, globalDefault: true } }).catch((x) => x);
    expect(second.code).toBe(403);
    expect(JSON.parse(second.body).message).toBe('priorityclasses.scheduling.k8s.io "everyone-else" is forbidden: PriorityClass everyone is already marked as default. Only one default can exist');
    // Pods without a class now get the global default.
    const defaulted = await whenAdmitted("/api/v1/namespaces/default/pods", podBody("plain"), (o) => o.spec.priorityClassName === "everyone");
    expect(defaulted.spec.priority).toBe(10);
    await scheduling.deletePriorityClass({ name: "everyone" });
  });
});

describe("nodes", () => {
  it("a new node is tainted not-ready:NoSchedule", async () => {
    const n = await core.createNode({ body: { metadata: { name: "worker-1" } } });
    expect(n.spec?.taints).toEqual([{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }]);
  });
});

describe("storage", () => {
  it.skipIf(!kubectlBin)("a claim without a class gets the default StorageClass and the protection finalizer", async () => {
    const sc = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: example.com/fast
allowVolumeExpansion: true
`;
    expect((await run(["apply", "-f", "-"], sc)).stderr).toBe("");
    const claim = { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } };
    await whenAdmitted("/api/v1/namespaces/default/persistentvolumeclaims", claim, (o) => o.spec.storageClassName === "fast");
    const created = await core.createNamespacedPersistentVolumeClaim({ namespace: "default", body: claim });
    expect(created.spec?.storageClassName).toBe("fast");
    expect(created.metadata?.finalizers).toEqual(["kubernetes.io/pvc-protection"]);
    // An explicit empty class stays empty (no dynamic provisioning).
    const none = await core.createNamespacedPersistentVolumeClaim({ namespace: "default", body: { ...claim, metadata: { name: "static" }, spec: { ...claim.spec, storageClassName: "" } } });
    expect(none.spec?.storageClassName).toBe("");
    const pv = await core.createPersistentVolume({ body: { metadata: { name: "pv1" }, spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp/pv1" } } } });
    expect(pv.metadata?.finalizers).toEqual(["kubernetes.io/pv-protection"]);
  });

  it("a claim may only grow when bound and its class allows expansion", async () => {
    await storage.createStorageClass({ body: { metadata: { name: "rigid" }, provisioner: "example.com/rigid" } });
    const claim = (name: string, cls: string) => ({ metadata: { name }, spec: { accessModes: ["ReadWriteOnce"], storageClassName: cls, resources: { requests: { storage: "1Gi" } } } });
    await core.createNamespacedPersistentVolumeClaim({ namespace: "default", body: claim("pending", "fast") });
    const grow = (name: string) => req(s, "PATCH", `/api/v1/namespaces/default/persistentvolumeclaims/${name}`, { body: { spec: { resources: { requests: { storage: "2Gi" } } } }, headers: { "content-type": "application/merge-patch+json" } });
    // An unbound claim's spec is immutable: validation answers before the plugin (as upstream).
    const unbound = await grow("pending");
    expect(unbound.status).toBe(422);
    for (const [name, cls] of [["elastic", "fast"], ["stiff", "rigid"]]) {
      await core.createNamespacedPersistentVolumeClaim({ namespace: "default", body: claim(name!, cls!) });
      const bound = await req(s, "PATCH", `/api/v1/namespaces/default/persistentvolumeclaims/${name}/status`, { body: { status: { phase: "Bound" } }, headers: { "content-type": "application/merge-patch+json" } });
      expect(bound.status, bound.text).toBe(200);
    }
    const refused = await grow("stiff");
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe('persistentvolumeclaims "stiff" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    const grown = await grow("elastic");
    expect(grown.status, grown.text).toBe(200);
    expect(grown.json.spec.resources.requests.storage).toBe("2Gi");
  });
});

describe("storage protection", () => {
  /** Whether the object is gone once the protection controllers have settled. */
  const gone = async (path: string) => {
    await server.settle();
    return (await req(s, "GET", path)).status === 404;
  };
  it("a deleted claim stays while a scheduled pod uses it, and goes once the pod is gone", async () => {
    const claim = { metadata: { name: "held" }, spec: { accessModes: ["ReadWriteOnce"], storageClassName: "", resources: { requests: { storage: "1Gi" } } } };
    await core.createNamespacedPersistentVolumeClaim({ namespace: "default", body: claim });
    await core.createNamespacedPod({ namespace: "default", body: podBody("holder", { nodeName: "worker-1", volumes: [{ name: "d", persistentVolumeClaim: { claimName: "held" } }] }) });
    await core.deleteNamespacedPersistentVolumeClaim({ namespace: "default", name: "held" });
    await server.settle(); // pvc-protection has looked at the claim: it keeps its finalizer while the pod uses it
    const held = await core.readNamespacedPersistentVolumeClaim({ namespace: "default", name: "held" });
    expect(held.metadata?.deletionTimestamp).toBeDefined();
    expect(held.metadata?.finalizers).toEqual(["kubernetes.io/pvc-protection"]);
    await core.deleteNamespacedPod({ namespace: "default", name: "holder", gracePeriodSeconds: 0 });
    expect(await gone("/api/v1/namespaces/default/persistentvolumeclaims/held")).toBe(true);
  });
  it("a deleted claim or volume nothing uses goes at once", async () => {
    await core.createNamespacedPersistentVolumeClaim({ namespace: "default", body: { metadata: { name: "free" }, spec: { accessModes: ["ReadWriteOnce"], storageClassName: "", resources: { requests: { storage: "1Gi" } } } } });
    await core.deleteNamespacedPersistentVolumeClaim({ namespace: "default", name: "free" });
    expect(await gone("/api/v1/namespaces/default/persistentvolumeclaims/free")).toBe(true);
    await core.createPersistentVolume({ body: { metadata: { name: "loose" }, spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp/loose" } } } });
    await core.deletePersistentVolume({ name: "loose" });
    expect(await gone("/api/v1/persistentvolumes/loose")).toBe(true);
  });
});

describe("RuntimeClass", () => {
  it("a pod of a RuntimeClass gets its overhead and scheduling; a missing class is refused", async () => {
    await node.createRuntimeClass({
      body: { metadata: { name: "kata" }, handler: "kata", overhead: { podFixed: { cpu: "250m", memory: "120Mi" } }, scheduling: { nodeSelector: { sandbox: "kata" } } },
    });
    const pod = await core.createNamespacedPod({ namespace: "default", body: podBody("sandboxed", { runtimeClassName: "kata" }) });
    expect(pod.spec?.overhead).toEqual({ cpu: "250m", memory: "120Mi" });
    expect(pod.spec?.nodeSelector).toEqual({ sandbox: "kata" });
    const missing = await req(s, "POST", "/api/v1/namespaces/default/pods", { body: podBody("nowhere", { runtimeClassName: "gvisor" }) });
    expect(missing.status).toBe(403);
    expect(missing.json.message).toBe('pods "nowhere" is forbidden: pod rejected: RuntimeClass "gvisor" not found');
  });
});

describe("DefaultIngressClass", () => {
  it("an Ingress without a class gets the default IngressClass", async () => {
    await networking.createIngressClass({ body: { metadata: { name: "nginx", annotations: { "ingressclass.kubernetes.io/is-default-class": "true" } }, spec: { controller: "k8s.io/ingress-nginx" } } });
    const body = { metadata: { name: "site" }, spec: { defaultBackend: { service: { name: "web", port: { number: 80 } } } } };
    await whenAdmitted("/apis/networking.k8s.io/v1/namespaces/default/ingresses", body, (o) => o.spec.ingressClassName === "nginx");
    const ing = await networking.createNamespacedIngress({ namespace: "default", body });
    expect(ing.spec?.ingressClassName).toBe("nginx");
  });
});

describe("DefaultTolerationSeconds flags", () => {
  it("--default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds set the seconds", async () => {
    const other = await startTestServer({ storage: "memory", options: { defaultNotReadyTolerationSeconds: 60, defaultUnreachableTolerationSeconds: 120 } });
    try {
      const r = await req(other, "POST", "/api/v1/namespaces/default/pods", { body: podBody("p") });
      expect(r.status, r.text).toBe(201);
      expect(r.json.spec.tolerations.map((t: any) => [t.key, t.tolerationSeconds])).toEqual([
        ["node.kubernetes.io/not-ready", 60],
        ["node.kubernetes.io/unreachable", 120],
      ]);
    } finally {
      await other.stop();
    }
  });

  it("with the plugins disabled, pods are stored as sent", async () => {
    const other = await startTestServer({ storage: "memory", options: { disableAdmissionPlugins: ["ServiceAccount", "DefaultTolerationSeconds", "Priority"] } });
    try {
      const r = await req(other, "POST", "/api/v1/namespaces/default/pods", { body: podBody("p") });
      expect(r.status, r.text).toBe(201);
      expect(r.json.spec.tolerations).toBeUndefined();
      expect(r.json.spec.volumes).toBeUndefined();
      expect(r.json.spec.priority).toBeUndefined();
      expect(r.json.spec.serviceAccountName).toBeUndefined();
    } finally {
      await other.stop();
    }
  });
});

describe("plugins off by default, turned on by flag", () => {
  it.skipIf(!kubectlBin)("--enable-admission-plugins with an admission configuration file: PodNodeSelector, AlwaysPullImages, NamespaceAutoProvision, DenyServiceExternalIPs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-admission-flags-"));
    const config = join(dir, "admission.yaml");
    writeFileSync(
      config,
      `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodNodeSelector
  configuration:
    podNodeSelectorPluginConfig:
      clusterDefaultNodeSelector: env=prod
`,
    );
    const other = await startServer({
      storage: "sqlite",
      dataDir: dir,
      options: { enableAdmissionPlugins: ["PodNodeSelector", "AlwaysPullImages", "NamespaceAutoProvision", "DenyServiceExternalIPs"], admissionControlConfigFile: config },
    });
    try {
      const k = (args: string[], stdin?: string) => kubectl(kubectlBin!, other.kubeconfigPath!, args, stdin);
      // NamespaceAutoProvision: the namespace is made by the first create in it.
      const created = await k(["create", "configmap", "c", "-n", "made-on-demand"]);
      expect(created.stderr).toBe("");
      expect((await k(["get", "namespace", "made-on-demand", "-o", "name"])).stdout.trim()).toBe("namespace/made-on-demand");
      // PodNodeSelector (cluster default) and AlwaysPullImages.
      const ran = await k(["run", "web", "--image=nginx:1.27", "--image-pull-policy=IfNotPresent", "-o", "json", "--dry-run=server"]);
      expect(ran.stderr).toBe("");
      const pod = JSON.parse(ran.stdout);
      expect(pod.spec.nodeSelector).toEqual({ env: "prod" });
      expect(pod.spec.containers[0].imagePullPolicy).toBe("Always");
      const conflicting = await k(["run", "elsewhere", "--image=nginx", "--overrides", JSON.stringify({ spec: { nodeSelector: { env: "dev" } } })]);
      expect(conflicting.stderr.trim()).toBe('Error from server (Forbidden): pods "elsewhere" is forbidden: pod node label selector conflicts with its namespace node label selector');
      // DenyServiceExternalIPs.
      const svc = await k(["create", "service", "clusterip", "ext", "--tcp=80:80", "--dry-run=client", "-o", "json"]);
      const body = JSON.parse(svc.stdout);
      body.spec.externalIPs = ["203.0.113.7"];
      const denied = await k(["create", "-f", "-"], JSON.stringify(body));
      expect(denied.stderr.trim()).toBe('Error from server (Forbidden): error when creating "STDIN": services "ext" is forbidden: Use of external IPs is denied by admission control');
    } finally {
      await other.stop();
    }
  });
});

describe("PodTopologyLabels", () => {
  it("with its gate on, binding a pod to a node copies the node's zone and region labels onto the pod", async () => {
    const other = await startTestServer({ storage: "memory", options: { featureGates: "PodTopologyLabelsAdmission=true" } });
    try {
      const labels = { "topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/region": "r1", "kubernetes.io/hostname": "n1" };
      expect((await req(other, "POST", "/api/v1/nodes", { body: { metadata: { name: "n1", labels } } })).status).toBe(201);
      expect((await req(other, "POST", "/api/v1/namespaces/default/pods", { body: podBody("placed") })).status).toBe(201);
      const bound = await req(other, "POST", "/api/v1/namespaces/default/pods/placed/binding", { body: { apiVersion: "v1", kind: "Binding", metadata: { name: "placed" }, target: { kind: "Node", name: "n1" } } });
      expect(bound.status, bound.text).toBe(201);
      const pod = (await req(other, "GET", "/api/v1/namespaces/default/pods/placed")).json;
      expect(pod.spec.nodeName).toBe("n1");
      expect(pod.metadata.labels).toEqual({ "topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/region": "r1" });
    } finally {
      await other.stop();
    }
  });

  it("with its gate off (1.34's default), binding copies nothing", async () => {
    await core.createNode({ body: { metadata: { name: "zoned", labels: { "topology.kubernetes.io/zone": "z9" } } } });
    await core.createNamespacedPod({ namespace: "default", body: podBody("unzoned") });
    const bound = await req(s, "POST", "/api/v1/namespaces/default/pods/unzoned/binding", { body: { apiVersion: "v1", kind: "Binding", metadata: { name: "unzoned" }, target: { kind: "Node", name: "zoned" } } });
    expect(bound.status, bound.text).toBe(201);
    const pod = await core.readNamespacedPod({ namespace: "default", name: "unzoned" });
    expect(pod.spec?.nodeName).toBe("zoned");
    expect(pod.metadata?.labels).toBeUndefined();
  });
});

describe("OwnerReferencesPermissionEnforcement", () => {
  it("with RBAC: owner references need delete on the object, blockOwnerDeletion needs update on the owner's finalizers", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-ownerrefs-"));
    const other = withCredentials(await startServer({ storage: "sqlite", dataDir: dir, authorizationMode: ["RBAC"], options: { enableAdmissionPlugins: ["OwnerReferencesPermissionEnforcement"] } }));
    try {
      const { certUser } = await import("./support/cert-user.js");
      const dev = await certUser(other, dir, dir, "dev");
      const role = (name: string, verbs: string[]) => ({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name },
        rules: [{ apiGroups: [""], resources: ["configmaps"], verbs }],
      });
      const bind = (name: string) => ({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata: { name }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name }, subjects: [{ kind: "User", name: "dev" }] });
      for (const body of [role("writer", ["create", "get"]), bind("writer")]) {
        const path = `/apis/rbac.authorization.k8s.io/v1/namespaces/default/${body.kind === "Role" ? "roles" : "rolebindings"}`;
        expect((await req(other, "POST", path, { body })).status).toBe(201);
      }
      const owner = (await req(other, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "owner" } } })).json;
      const ref = { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata.uid };
      const create = (name: string, r: Record<string, unknown>) => req(other, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name, ownerReferences: [r] } }, creds: dev.creds });
      // Without delete on configmaps: refused.
      const noDelete = await create("dependent", ref);
      expect(noDelete.status).toBe(403);
      expect(noDelete.json.message).toBe('configmaps "dependent" is forbidden: cannot set an ownerRef on a resource you can\'t delete: , <nil>');
      // Plain objects need nothing more (control).
      expect((await req(other, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "plain" } }, creds: dev.creds })).status).toBe(201);
      // With delete, a plain reference is fine, a blocking one needs the owner's finalizers.
      const del = { ...role("deleter", ["delete"]), metadata: { name: "deleter" } };
      expect((await req(other, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", { body: del })).status).toBe(201);
      expect((await req(other, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", { body: bind("deleter") })).status).toBe(201);
      await other.settle(); // the RBAC index follows the new binding through its informer
      const allowed = await create("dependent", ref);
      expect(allowed.status, allowed.text).toBe(201);
      const blocking = await create("blocking", { ...ref, blockOwnerDeletion: true });
      expect(blocking.status).toBe(403);
      expect(blocking.json.message).toBe('configmaps "blocking" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can\'t set finalizers on: , <nil>');
    } finally {
      await other.stop();
    }
  });
});
