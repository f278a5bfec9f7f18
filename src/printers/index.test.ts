import { describe, expect, it } from "vitest";
import { defaultPrinter, printerFor } from "./index.js";
import { now } from "./fixtures.testkit.js";

const resources: [string, string][] = [
  ["", "pods"], ["", "replicationcontrollers"], ["", "services"], ["", "endpoints"], ["", "nodes"],
  ["", "namespaces"], ["", "configmaps"], ["", "secrets"], ["", "serviceaccounts"], ["", "events"],
  ["", "persistentvolumes"], ["", "persistentvolumeclaims"], ["", "limitranges"], ["", "resourcequotas"],
  ["apps", "deployments"], ["apps", "replicasets"], ["apps", "statefulsets"], ["apps", "daemonsets"],
  ["batch", "jobs"], ["batch", "cronjobs"], ["events.k8s.io", "events"],
  ["networking.k8s.io", "ingresses"], ["networking.k8s.io", "ingressclasses"], ["networking.k8s.io", "networkpolicies"],
  ["discovery.k8s.io", "endpointslices"], ["storage.k8s.io", "storageclasses"],
  ["rbac.authorization.k8s.io", "roles"], ["rbac.authorization.k8s.io", "clusterroles"],
  ["rbac.authorization.k8s.io", "rolebindings"], ["rbac.authorization.k8s.io", "clusterrolebindings"],
  ["coordination.k8s.io", "leases"], ["scheduling.k8s.io", "priorityclasses"],
  ["autoscaling", "horizontalpodautoscalers"], ["policy", "poddisruptionbudgets"],
  ["certificates.k8s.io", "certificatesigningrequests"], ["apiextensions.k8s.io", "customresourcedefinitions"],
  ["apiregistration.k8s.io", "apiservices"],
];

describe("printerFor", () => {
  it.each(resources)("%s/%s has a printer whose cells line up with its columns", (group, resource) => {
    const p = printerFor(group, resource);
    expect(p).toBeDefined();
    const cells = p!.cells({ metadata: { name: "x", creationTimestamp: "2025-06-01T11:00:00Z" } }, now);
    expect(cells).toHaveLength(p!.columns.length);
    const nameCol = p!.columns.find((c) => c.format === "name")!;
    expect([nameCol.name, nameCol.type]).toEqual(["Name", "string"]);
    if (!(resource === "events")) expect(p!.columns[0]).toBe(nameCol);
    for (const c of p!.columns) {
      expect(Object.keys(c).sort()).toEqual(["description", "format", "name", "priority", "type"]);
      expect([0, 1]).toContain(c.priority);
    }
  });

  it("is undefined for unknown resources and wrong groups", () => {
    expect(printerFor("", "widgets")).toBeUndefined();
    expect(printerFor("apps", "pods")).toBeUndefined();
    expect(printerFor("example.com", "things")).toBeUndefined();
  });

  it("uses the default printer where upstream has no dedicated one", () => {
    for (const [g, r] of [
      ["rbac.authorization.k8s.io", "roles"],
      ["rbac.authorization.k8s.io", "clusterroles"],
      ["", "limitranges"],
      ["apiextensions.k8s.io", "customresourcedefinitions"],
    ] as const) {
      expect(printerFor(g, r)).toBe(defaultPrinter);
    }
  });
});

describe("defaultPrinter", () => {
  it("has Name and Created At columns", () => {
    expect(defaultPrinter.columns.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ["Name", "string", "name", 0],
      ["Created At", "date", "", 0],
    ]);
  });
  it("prints the creation time as RFC 3339 in UTC, whole seconds", () => {
    const crd = { metadata: { name: "widgets.example.com", creationTimestamp: "2025-05-30T08:15:42Z" } };
    expect(defaultPrinter.cells(crd, now)).toEqual(["widgets.example.com", "2025-05-30T08:15:42Z"]);
    expect(defaultPrinter.cells({ metadata: { name: "r", creationTimestamp: "2025-05-30T10:15:42.123+02:00" } }, now)).toEqual(["r", "2025-05-30T08:15:42Z"]);
    expect(defaultPrinter.cells({ metadata: { name: "z" } }, now)).toEqual(["z", "0001-01-01T00:00:00Z"]);
  });
});
