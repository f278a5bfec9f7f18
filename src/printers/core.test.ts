import { describe, expect, it } from "vitest";
import {
  configMapPrinter,
  endpointsPrinter,
  eventPrinter,
  namespacePrinter,
  nodePrinter,
  persistentVolumeClaimPrinter,
  persistentVolumePrinter,
  replicationControllerPrinter,
  resourceQuotaPrinter,
  secretPrinter,
  serviceAccountPrinter,
  servicePrinter,
} from "./core.js";
import type { Printer } from "./types.js";
import { ago, DAY, HOUR, meta, MIN, now, SEC } from "./fixtures.testkit.js";

const header = (p: Printer) => p.columns.map((c) => (c.priority ? `${c.name}*` : c.name));

describe("services", () => {
  it("columns", () => {
    expect(header(servicePrinter)).toEqual(["Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector*"]);
  });
  it("ClusterIP service", () => {
    const svc = {
      metadata: meta("web"),
      spec: {
        type: "ClusterIP",
        clusterIP: "10.96.0.10",
        clusterIPs: ["10.96.0.10"],
        selector: { app: "web", tier: "fe" },
        ports: [
          { name: "http", port: 80, protocol: "TCP", targetPort: 8080 },
          { name: "dns", port: 53, protocol: "UDP" },
        ],
      },
    };
    expect(servicePrinter.cells(svc, now)).toEqual(["web", "ClusterIP", "10.96.0.10", "<none>", "80/TCP,53/UDP", "3h2m", "app=web,tier=fe"]);
  });
  it("LoadBalancer, NodePort, ExternalName and headless services", () => {
    const lb = {
      metadata: meta("lb"),
      spec: { type: "LoadBalancer", clusterIPs: ["10.0.0.1"], ports: [{ port: 443, nodePort: 30443, protocol: "TCP" }] },
      status: { loadBalancer: { ingress: [{ ip: "203.0.113.9" }, { hostname: "a.example.com" }, { ip: "203.0.113.1" }] } },
    };
    expect(servicePrinter.cells(lb, now)).toEqual(["lb", "LoadBalancer", "10.0.0.1", "203.0.113.1,203.0.113.9,a.example.com", "443:30443/TCP", "3h2m", "<none>"]);
    const pending = { ...lb, status: {} };
    expect(servicePrinter.cells(pending, now)[3]).toBe("<pending>");
    const withExternal = { ...lb, spec: { ...lb.spec, externalIPs: ["198.51.100.7"] } };
    expect(servicePrinter.cells(withExternal, now)[3]).toBe("203.0.113.1,203.0.113.9,a.example.com,198.51.100.7");
    const np = { metadata: meta("np"), spec: { type: "NodePort", clusterIPs: ["10.0.0.2"], externalIPs: ["1.2.3.4", "5.6.7.8"], ports: [{ port: 80, nodePort: 30080, protocol: "TCP" }] } };
    expect(servicePrinter.cells(np, now).slice(1, 5)).toEqual(["NodePort", "10.0.0.2", "1.2.3.4,5.6.7.8", "80:30080/TCP"]);
    const ext = { metadata: meta("ext"), spec: { type: "ExternalName", externalName: "db.example.com" } };
    expect(servicePrinter.cells(ext, now).slice(1, 5)).toEqual(["ExternalName", "<none>", "db.example.com", "<none>"]);
    const headless = { metadata: meta("hl"), spec: { type: "ClusterIP", clusterIP: "None", clusterIPs: ["None"] } };
    expect(servicePrinter.cells(headless, now).slice(1, 5)).toEqual(["ClusterIP", "None", "<none>", "<none>"]);
  });
});

describe("endpoints", () => {
  it("lists host:port pairs, capped at three", () => {
    const ep = {
      metadata: meta("web"),
      subsets: [
        {
          addresses: [{ ip: "10.1.0.1" }, { ip: "10.1.0.2" }],
          ports: [{ name: "http", port: 8080 }, { name: "https", port: 8443 }],
        },
        { addresses: [{ ip: "fd00::3" }], ports: [{ port: 80 }] },
      ],
    };
    expect(header(endpointsPrinter)).toEqual(["Name", "Endpoints", "Age"]);
    expect(endpointsPrinter.cells(ep, now)).toEqual(["web", "10.1.0.1:8080,10.1.0.2:8080,10.1.0.1:8443 + 2 more...", "3h2m"]);
    const small = { metadata: meta("one"), subsets: [{ addresses: [{ ip: "fd00::3" }], ports: [{ port: 80 }] }] };
    expect(endpointsPrinter.cells(small, now)[1]).toBe("[fd00::3]:80");
    expect(endpointsPrinter.cells({ metadata: meta("none") }, now)[1]).toBe("<none>");
    const headless = { metadata: meta("h"), subsets: [{ addresses: [{ ip: "10.1.0.9" }] }] };
    expect(endpointsPrinter.cells(headless, now)[1]).toBe("10.1.0.9");
  });
});

describe("nodes", () => {
  const node = {
    metadata: meta("node-1", ago(47 * HOUR), {
      labels: { "node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/etcd": "", "kubernetes.io/role": "master" },
    }),
    spec: { unschedulable: true },
    status: {
      conditions: [
        { type: "MemoryPressure", status: "False" },
        { type: "Ready", status: "True" },
      ],
      addresses: [
        { type: "Hostname", address: "node-1" },
        { type: "InternalIP", address: "192.168.1.10" },
      ],
      nodeInfo: {
        kubeletVersion: "v1.34.1",
        osImage: "Ubuntu 24.04 LTS",
        kernelVersion: "6.8.0-45-generic",
        containerRuntimeVersion: "containerd://2.0.0",
      },
    },
  };
  it("columns", () => {
    expect(header(nodePrinter)).toEqual(["Name", "Status", "Roles", "Age", "Version", "Internal-IP*", "External-IP*", "OS-Image*", "Kernel-Version*", "Container-Runtime*"]);
  });
  it("cells", () => {
    expect(nodePrinter.cells(node, now)).toEqual([
      "node-1", "Ready,SchedulingDisabled", "control-plane,etcd,master", "47h", "v1.34.1",
      "192.168.1.10", "<none>", "Ubuntu 24.04 LTS", "6.8.0-45-generic", "containerd://2.0.0",
    ]);
  });
  it("unknown and not-ready nodes", () => {
    const bare = { metadata: meta("n2"), status: {} };
    expect(nodePrinter.cells(bare, now)).toEqual(["n2", "Unknown", "<none>", "3h2m", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"]);
    const notReady = { metadata: meta("n3"), status: { conditions: [{ type: "Ready", status: "Unknown" }] } };
    expect(nodePrinter.cells(notReady, now)[1]).toBe("NotReady");
  });
});

describe("simple core printers", () => {
  it("namespaces", () => {
    expect(header(namespacePrinter)).toEqual(["Name", "Status", "Age"]);
    expect(namespacePrinter.cells({ metadata: meta("kube-system", ago(400 * DAY)), status: { phase: "Active" } }, now)).toEqual(["kube-system", "Active", "400d"]);
  });
  it("configmaps count data and binaryData", () => {
    expect(header(configMapPrinter)).toEqual(["Name", "Data", "Age"]);
    const cm = { metadata: meta("cfg", ago(90 * SEC)), data: { a: "1", b: "2" }, binaryData: { c: "AA==" } };
    expect(configMapPrinter.cells(cm, now)).toEqual(["cfg", 3, "90s"]);
  });
  it("secrets", () => {
    expect(header(secretPrinter)).toEqual(["Name", "Type", "Data", "Age"]);
    const s = { metadata: meta("tls", ago(5 * MIN)), type: "kubernetes.io/tls", data: { "tls.crt": "x", "tls.key": "y" } };
    expect(secretPrinter.cells(s, now)).toEqual(["tls", "kubernetes.io/tls", 2, "5m"]);
  });
  it("serviceaccounts have no SECRETS column in 1.34", () => {
    expect(header(serviceAccountPrinter)).toEqual(["Name", "Age"]);
    expect(serviceAccountPrinter.cells({ metadata: meta("default", ago(3 * 365 * DAY)), secrets: [{ name: "x" }] }, now)).toEqual(["default", "3y"]);
  });
  it("replicationcontrollers", () => {
    expect(header(replicationControllerPrinter)).toEqual(["Name", "Desired", "Current", "Ready", "Age", "Containers*", "Images*", "Selector*"]);
    const rc = {
      metadata: meta("rc"),
      spec: { replicas: 3, selector: { app: "rc" }, template: { spec: { containers: [{ name: "a", image: "nginx:1" }, { name: "b", image: "busybox" }] } } },
      status: { replicas: 3, readyReplicas: 2 },
    };
    expect(replicationControllerPrinter.cells(rc, now)).toEqual(["rc", 3, 3, 2, "3h2m", "a,b", "nginx:1,busybox", "app=rc"]);
  });
  it("resourcequotas split requests and limits", () => {
    expect(header(resourceQuotaPrinter)).toEqual(["Name", "Request", "Limit", "Age"]);
    const rq = {
      metadata: meta("quota"),
      status: {
        hard: { pods: "10", "requests.cpu": "4", "requests.memory": "8Gi", "limits.cpu": "8", "limits.memory": "16Gi" },
        used: { pods: "3", "requests.cpu": "1500m", "requests.memory": "2048Mi", "limits.cpu": "3" },
      },
    };
    expect(resourceQuotaPrinter.cells(rq, now)).toEqual([
      "quota",
      "pods: 3/10, requests.cpu: 1500m/4, requests.memory: 2Gi/8Gi",
      "limits.cpu: 3/8, limits.memory: 0/16Gi",
      "3h2m",
    ]);
  });
});

describe("persistent volumes", () => {
  it("pv", () => {
    expect(header(persistentVolumePrinter)).toEqual(["Name", "Capacity", "Access Modes", "Reclaim Policy", "Status", "Claim", "StorageClass", "VolumeAttributesClass", "Reason", "Age", "VolumeMode*"]);
    const pv = {
      metadata: meta("pv-1"),
      spec: {
        capacity: { storage: "10Gi" },
        accessModes: ["ReadWriteMany", "ReadWriteOnce", "ReadWriteOnce"],
        persistentVolumeReclaimPolicy: "Retain",
        claimRef: { namespace: "default", name: "data" },
        storageClassName: "fast",
        volumeMode: "Filesystem",
      },
      status: { phase: "Bound" },
    };
    expect(persistentVolumePrinter.cells(pv, now)).toEqual(["pv-1", "10Gi", "RWO,RWX", "Retain", "Bound", "default/data", "fast", "<unset>", "", "3h2m", "Filesystem"]);
    const deleting = { ...pv, metadata: { ...pv.metadata, deletionTimestamp: ago(SEC), annotations: { "volume.beta.kubernetes.io/storage-class": "old" } } };
    const cells = persistentVolumePrinter.cells(deleting, now);
    expect([cells[4], cells[6]]).toEqual(["Terminating", "old"]);
  });
  it("pvc bound and pending", () => {
    expect(header(persistentVolumeClaimPrinter)).toEqual(["Name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass", "VolumeAttributesClass", "Age", "VolumeMode*"]);
    const bound = {
      metadata: meta("data"),
      spec: { volumeName: "pv-1", storageClassName: "fast", volumeMode: "Filesystem", resources: { requests: { storage: "5Gi" } } },
      status: { phase: "Bound", accessModes: ["ReadWriteOncePod"], capacity: { storage: "10240Mi" } },
    };
    expect(persistentVolumeClaimPrinter.cells(bound, now)).toEqual(["data", "Bound", "pv-1", "10Gi", "RWOP", "fast", "<unset>", "3h2m", "Filesystem"]);
    const pending = { metadata: meta("wait"), spec: { resources: { requests: { storage: "1Gi" } } }, status: { phase: "Pending" } };
    expect(persistentVolumeClaimPrinter.cells(pending, now)).toEqual(["wait", "Pending", "", "", "", "", "<unset>", "3h2m", "<unset>"]);
  });
});

describe("core events", () => {
  it("columns put Name last, as a wide column", () => {
    expect(header(eventPrinter)).toEqual(["Last Seen", "Type", "Reason", "Object", "Subobject*", "Source*", "Message", "First Seen*", "Count*", "Name*"]);
    expect(eventPrinter.columns[9]!.format).toBe("name");
  });
  it("classic event", () => {
    const ev = {
      metadata: meta("web.17a"),
      involvedObject: { kind: "Pod", name: "web", fieldPath: "spec.containers{app}" },
      reason: "BackOff",
      message: "Back-off restarting failed container\n",
      source: { component: "kubelet", host: "node-1" },
      firstTimestamp: ago(2 * HOUR),
      lastTimestamp: ago(5 * MIN),
      count: 12,
      type: "Warning",
    };
    expect(eventPrinter.cells(ev, now)).toEqual(["5m", "Warning", "BackOff", "pod/web", "spec.containers{app}", "kubelet, node-1", "Back-off restarting failed container", "120m", 12, "web.17a"]);
  });
  it("new-style event with series and reporting fields", () => {
    const ev = {
      metadata: meta("x.1"),
      involvedObject: { kind: "Node" },
      reason: "Ready",
      message: "ok",
      eventTime: "2025-06-01T11:00:00.000000Z",
      series: { count: 4, lastObservedTime: "2025-06-01T11:59:00.500000Z" },
      reportingComponent: "kubelet",
      reportingInstance: "",
      type: "Normal",
    };
    expect(eventPrinter.cells(ev, now)).toEqual(["59s", "Normal", "Ready", "node", "", "kubelet", "ok", "60m", 4, "x.1"]);
    const single = { ...ev, series: undefined };
    const cells = eventPrinter.cells(single, now);
    expect([cells[0], cells[8]]).toEqual(["60m", 1]);
  });
});
