import { describe, expect, it } from "vitest";
import { apiServicePrinter } from "./apiregistration.js";
import { horizontalPodAutoscalerPrinter } from "./autoscaling.js";
import { certificateSigningRequestPrinter } from "./certificates.js";
import { leasePrinter } from "./coordination.js";
import { endpointSlicePrinter } from "./discovery.js";
import { eventsV1Printer } from "./events.js";
import { ingressClassPrinter, ingressPrinter, networkPolicyPrinter } from "./networking.js";
import { podDisruptionBudgetPrinter } from "./policy.js";
import { clusterRoleBindingPrinter, roleBindingPrinter } from "./rbac.js";
import { priorityClassPrinter } from "./scheduling.js";
import { storageClassPrinter } from "./storage.js";
import type { Printer } from "./types.js";
import { ago, DAY, HOUR, meta, MIN, now } from "./fixtures.testkit.js";

const header = (p: Printer) => p.columns.map((c) => (c.priority ? `${c.name}*` : c.name));

describe("networking.k8s.io", () => {
  it("ingresses", () => {
    expect(header(ingressPrinter)).toEqual(["Name", "Class", "Hosts", "Address", "Ports", "Age"]);
    const ing = {
      metadata: meta("web"),
      spec: { ingressClassName: "nginx", tls: [{ hosts: ["a.example.com"] }], rules: [{ host: "a.example.com" }, { host: "b.example.com" }, {}, { host: "c.example.com" }, { host: "d.example.com" }] },
      status: { loadBalancer: { ingress: [{ ip: "192.0.2.10" }, { hostname: "lb.example.com" }] } },
    };
    expect(ingressPrinter.cells(ing, now)).toEqual(["web", "nginx", "a.example.com,b.example.com,c.example.com + 2 more...", "192.0.2.10,lb.example.com", "80, 443", "3h2m"]);
    const plain = { metadata: meta("any"), spec: { defaultBackend: { service: { name: "x" } } } };
    expect(ingressPrinter.cells(plain, now)).toEqual(["any", "<none>", "*", "", "80", "3h2m"]);
  });
  it("ingressclasses", () => {
    expect(header(ingressClassPrinter)).toEqual(["Name", "Controller", "Parameters", "Age"]);
    const ic = { metadata: meta("nginx"), spec: { controller: "k8s.io/ingress-nginx", parameters: { apiGroup: "k8s.example.com", kind: "IngressParameters", name: "external-lb" } } };
    expect(ingressClassPrinter.cells(ic, now)).toEqual(["nginx", "k8s.io/ingress-nginx", "IngressParameters.k8s.example.com/external-lb", "3h2m"]);
    expect(ingressClassPrinter.cells({ metadata: meta("x"), spec: { controller: "c" } }, now)[2]).toBe("<none>");
  });
  it("networkpolicies", () => {
    expect(header(networkPolicyPrinter)).toEqual(["Name", "Pod-Selector", "Age"]);
    expect(networkPolicyPrinter.cells({ metadata: meta("deny-all"), spec: { podSelector: {} } }, now)).toEqual(["deny-all", "<none>", "3h2m"]);
    const np = { metadata: meta("db"), spec: { podSelector: { matchLabels: { role: "db" }, matchExpressions: [{ key: "tier", operator: "Exists" }] } } };
    expect(networkPolicyPrinter.cells(np, now)[1]).toBe("role=db,tier");
  });
});

describe("discovery.k8s.io", () => {
  it("endpointslices", () => {
    expect(header(endpointSlicePrinter)).toEqual(["Name", "AddressType", "Ports", "Endpoints", "Age"]);
    const slice = {
      metadata: meta("web-abc"),
      addressType: "IPv4",
      ports: [{ name: "http", port: 80, protocol: "TCP" }, { name: "named" }, {}, { port: 9000 }],
      endpoints: [{ addresses: ["10.1.0.1"] }, { addresses: ["10.1.0.2", "10.1.0.3"] }, { addresses: ["10.1.0.4"] }],
    };
    expect(endpointSlicePrinter.cells(slice, now)).toEqual(["web-abc", "IPv4", "80,named,* + 1 more...", "10.1.0.1,10.1.0.2,10.1.0.3 + 1 more...", "3h2m"]);
    expect(endpointSlicePrinter.cells({ metadata: meta("e"), addressType: "IPv6" }, now)).toEqual(["e", "IPv6", "<unset>", "<unset>", "3h2m"]);
  });
});

describe("storage.k8s.io", () => {
  it("storageclasses", () => {
    expect(header(storageClassPrinter)).toEqual(["Name", "Provisioner", "ReclaimPolicy", "VolumeBindingMode", "AllowVolumeExpansion", "Age"]);
    const sc = { metadata: meta("standard", ago(30 * DAY), { annotations: { "storageclass.kubernetes.io/is-default-class": "true" } }), provisioner: "rancher.io/local-path" };
    expect(storageClassPrinter.cells(sc, now)).toEqual(["standard (default)", "rancher.io/local-path", "Delete", "Immediate", false, "30d"]);
    const fast = { metadata: meta("fast"), provisioner: "ebs.csi.aws.com", reclaimPolicy: "Retain", volumeBindingMode: "WaitForFirstConsumer", allowVolumeExpansion: true };
    expect(storageClassPrinter.cells(fast, now)).toEqual(["fast", "ebs.csi.aws.com", "Retain", "WaitForFirstConsumer", true, "3h2m"]);
  });
});

describe("rbac.authorization.k8s.io", () => {
  it("role and cluster role bindings", () => {
    expect(header(roleBindingPrinter)).toEqual(["Name", "Role", "Age", "Users*", "Groups*", "ServiceAccounts*"]);
    expect(header(clusterRoleBindingPrinter)).toEqual(header(roleBindingPrinter));
    const rb = {
      metadata: meta("read-pods"),
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
      subjects: [
        { kind: "User", name: "jane" },
        { kind: "User", name: "joe" },
        { kind: "Group", name: "devs" },
        { kind: "ServiceAccount", name: "ci", namespace: "build" },
      ],
    };
    expect(roleBindingPrinter.cells(rb, now)).toEqual(["read-pods", "ClusterRole/view", "3h2m", "jane, joe", "devs", "build/ci"]);
    expect(clusterRoleBindingPrinter.cells({ metadata: meta("x"), roleRef: { kind: "ClusterRole", name: "admin" } }, now)).toEqual(["x", "ClusterRole/admin", "3h2m", "", "", ""]);
  });
});

describe("other groups", () => {
  it("leases", () => {
    expect(header(leasePrinter)).toEqual(["Name", "Holder", "Age"]);
    const lease = { metadata: meta("kube-scheduler", ago(6 * DAY)), spec: { holderIdentity: "cp-1_1234", leaseDurationSeconds: 15 } };
    expect(leasePrinter.cells(lease, now)).toEqual(["kube-scheduler", "cp-1_1234", "6d"]);
    expect(leasePrinter.cells({ metadata: meta("free"), spec: {} }, now)[1]).toBe("");
  });
  it("priorityclasses", () => {
    expect(priorityClassPrinter.columns.map((c) => [c.name, c.type, c.priority])).toEqual([
      ["Name", "string", 0], ["Value", "integer", 0], ["Global-Default", "boolean", 0], ["Age", "string", 0], ["PreemptionPolicy", "string", 0],
    ]);
    const pc = { metadata: meta("system-node-critical", ago(100 * DAY)), value: 2000001000, preemptionPolicy: "PreemptLowerPriority" };
    expect(priorityClassPrinter.cells(pc, now)).toEqual(["system-node-critical", 2000001000, false, "100d", "PreemptLowerPriority"]);
  });
  it("poddisruptionbudgets", () => {
    expect(header(podDisruptionBudgetPrinter)).toEqual(["Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"]);
    const pdb = { metadata: meta("web"), spec: { minAvailable: "50%" }, status: { disruptionsAllowed: 1 } };
    expect(podDisruptionBudgetPrinter.cells(pdb, now)).toEqual(["web", "50%", "N/A", 1, "3h2m"]);
    const pdb2 = { metadata: meta("db"), spec: { maxUnavailable: 1 }, status: {} };
    expect(podDisruptionBudgetPrinter.cells(pdb2, now)).toEqual(["db", "N/A", "1", 0, "3h2m"]);
  });
  it("horizontalpodautoscalers (v2 and v1 shapes)", () => {
    expect(header(horizontalPodAutoscalerPrinter)).toEqual(["Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"]);
    const v2 = {
      metadata: meta("web"),
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        minReplicas: 2,
        maxReplicas: 10,
        metrics: [
          { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } },
          { type: "Resource", resource: { name: "memory", target: { type: "AverageValue", averageValue: "1024Mi" } } },
          { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "1k" } } },
        ],
      },
      status: {
        currentReplicas: 3,
        currentMetrics: [
          { type: "Resource", resource: { name: "cpu", current: { averageUtilization: 45, averageValue: "250m" } } },
          { type: "Resource", resource: { name: "memory", current: { averageValue: "512Mi" } } },
        ],
      },
    };
    expect(horizontalPodAutoscalerPrinter.cells(v2, now)).toEqual(["web", "Deployment/web", "cpu: 45%/80%, memory: 512Mi/1Gi + 1 more...", "2", 10, 3, "3h2m"]);
    const v1 = { metadata: meta("old"), spec: { scaleTargetRef: { kind: "Deployment", name: "old" }, maxReplicas: 5, targetCPUUtilizationPercentage: 50 }, status: { currentReplicas: 1 } };
    expect(horizontalPodAutoscalerPrinter.cells(v1, now)).toEqual(["old", "Deployment/old", "cpu: <unknown>/50%", "<unset>", 5, 1, "3h2m"]);
    const ext = {
      metadata: meta("ext"),
      spec: {
        scaleTargetRef: { kind: "Deployment", name: "w" },
        maxReplicas: 3,
        metrics: [
          { type: "External", external: { metric: { name: "q" }, target: { type: "AverageValue", averageValue: "30" } } },
          { type: "Object", object: { metric: { name: "rps" }, target: { type: "Value", value: "2k" } } },
        ],
      },
      status: { currentMetrics: [{ type: "External", external: { current: { averageValue: "12" } } }, { type: "Object", object: { current: { value: "1500" } } }] },
    };
    expect(horizontalPodAutoscalerPrinter.cells(ext, now)[2]).toBe("12/30 (avg), 1500/2k");
    expect(horizontalPodAutoscalerPrinter.cells({ metadata: meta("none"), spec: { maxReplicas: 1 } }, now)[2]).toBe("<none>");
  });
  it("certificatesigningrequests", () => {
    expect(header(certificateSigningRequestPrinter)).toEqual(["Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"]);
    const csr = {
      metadata: meta("csr-abc", ago(5 * MIN)),
      spec: { signerName: "kubernetes.io/kube-apiserver-client", username: "jane", expirationSeconds: 86400, request: "..." },
      status: { conditions: [{ type: "Approved", status: "True" }], certificate: "LS0t" },
    };
    expect(certificateSigningRequestPrinter.cells(csr, now)).toEqual(["csr-abc", "5m", "kubernetes.io/kube-apiserver-client", "jane", "24h", "Approved,Issued"]);
    const pending = { metadata: meta("p", ago(5 * MIN)), spec: { username: "system:node:n1" }, status: {} };
    expect(certificateSigningRequestPrinter.cells(pending, now)).toEqual(["p", "5m", "<none>", "system:node:n1", "<none>", "Pending"]);
    const denied = { ...pending, status: { conditions: [{ type: "Approved" }, { type: "Denied" }, { type: "Failed" }] } };
    expect(certificateSigningRequestPrinter.cells(denied, now)[5]).toBe("Denied,Failed");
  });
  it("apiservices", () => {
    expect(header(apiServicePrinter)).toEqual(["Name", "Service", "Available", "Age"]);
    const local = { metadata: meta("v1.apps", ago(20 * DAY)), spec: { group: "apps", version: "v1" }, status: { conditions: [{ type: "Available", status: "True", reason: "Local" }] } };
    expect(apiServicePrinter.cells(local, now)).toEqual(["v1.apps", "Local", "True", "20d"]);
    const remote = { metadata: meta("v1beta1.metrics.k8s.io"), spec: { service: { namespace: "kube-system", name: "metrics-server" } }, status: { conditions: [{ type: "Available", status: "False", reason: "MissingEndpoints" }] } };
    expect(apiServicePrinter.cells(remote, now)).toEqual(["v1beta1.metrics.k8s.io", "kube-system/metrics-server", "False (MissingEndpoints)", "3h2m"]);
    expect(apiServicePrinter.cells({ metadata: meta("x"), spec: {} }, now)[2]).toBe("Unknown");
  });
  it("events.k8s.io events map onto the core event columns", () => {
    const ev = {
      metadata: meta("web.18b"),
      eventTime: ago(3 * HOUR),
      series: { count: 3, lastObservedTime: ago(2 * MIN) },
      reportingController: "default-scheduler",
      reportingInstance: "default-scheduler-cp-1",
      action: "Scheduling",
      reason: "FailedScheduling",
      regarding: { kind: "Pod", name: "web", namespace: "default" },
      note: "0/3 nodes are available ",
      type: "Warning",
    };
    expect(eventsV1Printer.cells(ev, now)).toEqual(["2m", "Warning", "FailedScheduling", "pod/web", "", "default-scheduler, default-scheduler-cp-1", "0/3 nodes are available", "3h", 3, "web.18b"]);
    const legacy = {
      metadata: meta("old.1"),
      reason: "Pulled",
      regarding: { kind: "Pod", name: "p", fieldPath: "spec.containers{app}" },
      note: "pulled",
      type: "Normal",
      deprecatedSource: { component: "kubelet", host: "n1" },
      deprecatedFirstTimestamp: ago(10 * MIN),
      deprecatedLastTimestamp: ago(MIN),
      deprecatedCount: 2,
    };
    expect(eventsV1Printer.cells(legacy, now)).toEqual(["60s", "Normal", "Pulled", "pod/p", "spec.containers{app}", "kubelet, n1", "pulled", "10m", 2, "old.1"]);
  });
});
