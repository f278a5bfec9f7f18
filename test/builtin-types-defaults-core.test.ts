// Defaults on create of the core (v1) kinds match kube-apiserver 1.34; expected objects are
// written from upstream's defaulting rules.
import { describe, expect, it } from "vitest";
import { req } from "./support/client.js";
import { defaultedTemplate, itCreatesWithDefaults, ns, podAdmissionDefaults, podSpecDefaults, serverPerFile, template, tokenMount, tokenVolume, type DefaultCase } from "./support/builtin-types.js";

const server = serverPerFile();

const coreCases: DefaultCase[] = [
  {
    name: "Pod",
    path: `/api/v1/namespaces/${ns}/pods`,
    body: {
      metadata: { name: "p1" },
      spec: {
        containers: [
          { name: "a", image: "nginx:1.27", ports: [{ containerPort: 80 }], livenessProbe: { httpGet: { port: 80 } }, resources: { limits: { cpu: "0.5", memory: "128Mi" } } },
          { name: "b", image: "registry:5000/app", env: [{ name: "N", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }] },
          { name: "d", image: "busybox@sha256:0000000000000000000000000000000000000000000000000000000000000000" },
        ],
        volumes: [{ name: "s", secret: { secretName: "x" } }, { name: "e" }, { name: "cm", configMap: { name: "c" } }, { name: "h", hostPath: { path: "/tmp" } }],
      },
    },
    expected: {
      spec: {
        containers: [
          {
            name: "a",
            image: "nginx:1.27",
            imagePullPolicy: "IfNotPresent",
            ports: [{ containerPort: 80, protocol: "TCP" }],
            livenessProbe: { httpGet: { port: 80, path: "/", scheme: "HTTP" }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
            resources: { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "500m", memory: "128Mi" } },
            terminationMessagePath: "/dev/termination-log",
            terminationMessagePolicy: "File",
            volumeMounts: [tokenMount],
          },
          {
            name: "b",
            image: "registry:5000/app",
            imagePullPolicy: "Always",
            env: [{ name: "N", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } } }],
            resources: {},
            terminationMessagePath: "/dev/termination-log",
            terminationMessagePolicy: "File",
            volumeMounts: [tokenMount],
          },
          {
            name: "d",
            image: "busybox@sha256:0000000000000000000000000000000000000000000000000000000000000000",
            imagePullPolicy: "IfNotPresent",
            resources: {},
            terminationMessagePath: "/dev/termination-log",
            terminationMessagePolicy: "File",
            volumeMounts: [tokenMount],
          },
        ],
        volumes: [
          { name: "s", secret: { secretName: "x", defaultMode: 420 } },
          { name: "e", emptyDir: {} },
          { name: "cm", configMap: { name: "c", defaultMode: 420 } },
          { name: "h", hostPath: { path: "/tmp", type: "" } },
          tokenVolume,
        ],
        ...podSpecDefaults,
        ...podAdmissionDefaults,
        enableServiceLinks: true,
      },
      status: { phase: "Pending", qosClass: "Burstable" },
    },
  },
  {
    name: "ReplicationController",
    path: `/api/v1/namespaces/${ns}/replicationcontrollers`,
    body: { metadata: { name: "rc1" }, spec: { template: template({ app: "rc" }) } },
    labels: { app: "rc" },
    expected: { spec: { replicas: 1, selector: { app: "rc" }, template: defaultedTemplate({ app: "rc" }) }, status: { replicas: 0 } },
  },
  {
    name: "PodTemplate",
    path: `/api/v1/namespaces/${ns}/podtemplates`,
    body: { metadata: { name: "pt1" }, template: template({ a: "b" }) },
    expected: { template: defaultedTemplate({ a: "b" }) },
  },
  {
    name: "Service",
    path: `/api/v1/namespaces/${ns}/services`,
    body: { metadata: { name: "svc-defaults" }, spec: { selector: { app: "x" }, ports: [{ port: 80 }] } },
    expected: {
      spec: {
        clusterIP: expect.stringMatching(/^10\.0\.0\.\d+$/),
        clusterIPs: [expect.stringMatching(/^10\.0\.0\.\d+$/)],
        internalTrafficPolicy: "Cluster",
        ipFamilies: ["IPv4"],
        ipFamilyPolicy: "SingleStack",
        ports: [{ port: 80, protocol: "TCP", targetPort: 80 }],
        selector: { app: "x" },
        sessionAffinity: "None",
        type: "ClusterIP",
      },
      status: { loadBalancer: {} },
    },
  },
  {
    name: "Secret",
    path: `/api/v1/namespaces/${ns}/secrets`,
    body: { metadata: { name: "sec1" }, data: { a: "YQ==" }, stringData: { b: "hello", a: "over" } },
    expected: { data: { a: Buffer.from("over").toString("base64"), b: Buffer.from("hello").toString("base64") }, type: "Opaque" },
  },
  {
    name: "ServiceAccount",
    path: `/api/v1/namespaces/${ns}/serviceaccounts`,
    body: { metadata: { name: "sa1" } },
    expected: {},
  },
  {
    name: "ConfigMap",
    path: `/api/v1/namespaces/${ns}/configmaps`,
    body: { metadata: { name: "cm1" }, data: { k: "v" } },
    expected: { data: { k: "v" } },
  },
  {
    name: "PersistentVolumeClaim",
    path: `/api/v1/namespaces/${ns}/persistentvolumeclaims`,
    body: { metadata: { name: "pvc1" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } },
    expected: { spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, volumeMode: "Filesystem" }, status: { phase: "Pending" } },
  },
  {
    name: "Namespace",
    path: `/api/v1/namespaces`,
    body: { metadata: { name: "ns-defaults" } },
    labels: { "kubernetes.io/metadata.name": "ns-defaults" },
    expected: { spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } },
  },
  {
    name: "Node",
    path: `/api/v1/nodes`,
    body: { metadata: { name: "node1" }, status: { capacity: { cpu: "4", memory: "8Gi" } } },
    expected: {
      // TaintNodesByCondition: not schedulable until its kubelet reports Ready.
      spec: { taints: [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }] },
      status: {
        allocatable: { cpu: "4", memory: "8Gi" },
        capacity: { cpu: "4", memory: "8Gi" },
        daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
        nodeInfo: {
          architecture: "", bootID: "", containerRuntimeVersion: "", kernelVersion: "", kubeProxyVersion: "", kubeletVersion: "", machineID: "", operatingSystem: "", osImage: "", systemUUID: "",
        },
      },
    },
  },
  {
    name: "Event",
    path: `/api/v1/namespaces/${ns}/events`,
    body: { metadata: { name: "ev1" }, involvedObject: { kind: "Pod", name: "p" }, reason: "R", message: "m" },
    expected: {
      involvedObject: { kind: "Pod", name: "p" },
      reason: "R",
      message: "m",
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: null,
      reportingComponent: "",
      reportingInstance: "",
    },
  },
];

describe("defaults on create of core kinds match kube-apiserver 1.34", () => {
  itCreatesWithDefaults(server, coreCases);

  it("Pod QoS classes", async () => {
    const mk = async (name: string, resources: unknown) =>
      (await req(server(), "POST", `/api/v1/namespaces/${ns}/pods`, { body: { metadata: { name }, spec: { containers: [{ name: "c", image: "x", resources }] } } })).json.status.qosClass;
    expect(await mk("qos-be", undefined)).toBe("BestEffort");
    expect(await mk("qos-bu", { requests: { cpu: "100m" } })).toBe("Burstable");
    expect(await mk("qos-gu", { limits: { cpu: "1", memory: "1Gi" } })).toBe("Guaranteed");
  });
});
