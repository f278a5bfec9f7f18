// Every admission plugin kapi implements runs the one admission plugin conformance suite, built
// by its own factory (as the server builds it) over a real in-memory store, type registry and
// informers, against writes of several kinds, operations and users.
import { afterAll, describe, expect, it } from "vitest";
import { mastersGroup, type UserInfo } from "../apimachinery/user.js";
import type { Authorizer } from "../authz/authorizer.js";
import { FeatureGates } from "../apimachinery/feature-gates.js";
import { InformerFactory } from "../registry/informer-factory.js";
import { NamespaceStates } from "../registry/namespace-states.js";
import type { KObject } from "../apimachinery/object.js";
import type { ResourceType } from "../registry/resource-type.js";
import { Stores } from "../registry/stores.js";
import { Cacher } from "../storage/cacher/cacher.js";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { builtinTypeRegistry } from "../types/register.js";
import { admissionAttributes } from "./attributes.testkit.js";
import { noAdmission } from "./chain.js";
import { admissionPluginConformance, type AdmissionConformanceCase, type ExpectedOutcome } from "./conformance.testkit.js";
import type { AdmissionAttributes } from "../registry/admission.js";
import { allOrderedPlugins, buildAdmissionPlugins, defaultOnPlugins, implementedAdmissionPlugins, type AdmissionPluginName } from "./plugins.js";

// One world for the whole file: plugins only read it (a case that writes, as
// NamespaceAutoProvision does, writes the same thing every time).
const storage = new MemoryStorage();
const cacher = new Cacher<KObject>(storage);
const types = builtinTypeRegistry(() => true);
const informers = new InformerFactory(cacher, types, (e) => {
  throw e;
});
const stores = new Stores(storage, noAdmission);
const nsType = types.get("", "v1", "namespaces")!;
const namespaces = new NamespaceStates(informers.metadataFor(nsType), stores.for(nsType));
const allowAll: Authorizer = { authorize: () => ({ decision: "allow", reason: "" }) };
afterAll(async () => {
  informers.stop();
  cacher.stop();
  await storage.close();
});
const ready = Promise.all(["default", "kube-system"].map((name) => stores.for(nsType).create("", { metadata: { name } }, { dryRun: false })));

/** Builds one plugin by its name, through the same factory table the server uses. */
async function make(name: AdmissionPluginName) {
  await ready;
  const disable = [...defaultOnPlugins].filter((n) => n !== name);
  const [plugin] = buildAdmissionPlugins(
    { enableAdmissionPlugins: [name], disableAdmissionPlugins: disable },
    { parts: () => ({ stores, types, informers }), namespaces, authorizer: () => allowAll, gates: FeatureGates.parse(""), flags: {}, configuration: () => undefined, log: () => {} },
  );
  return plugin;
}

const admin: UserInfo = { name: "admin", groups: [mastersGroup, "system:authenticated"] };
const nodeUser: UserInfo = { name: "system:node:node-1", groups: ["system:nodes", "system:authenticated"] };
const type = (group: string, version: string, resource: string): ResourceType => types.get(group, version, resource)!;

const pod = (name: string): KObject =>
  ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: { containers: [{ name: "c", image: "nginx", resources: { requests: { cpu: "100m" } } }], restartPolicy: "Always", dnsPolicy: "ClusterFirst", schedulerName: "default-scheduler" },
  }) as KObject;
const configMap = (data: Record<string, string>): KObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "default" }, data }) as KObject;

/**
 * The writes every plugin sees: each plugin passes or refuses them by its own rules. The missing
 * namespace is the plugin's own: NamespaceAutoProvision creates it.
 */
const writesFor = (plugin: string): { title: string; attributes: () => AdmissionAttributes }[] => [
  { title: "create a ConfigMap", attributes: () => admissionAttributes({ operation: "CREATE", type: type("", "v1", "configmaps"), namespace: "default", name: "cm", subresource: "", dryRun: false, object: configMap({ a: "1" }), user: admin }) },
  {
    title: "update a ConfigMap",
    attributes: () => admissionAttributes({ operation: "UPDATE", type: type("", "v1", "configmaps"), namespace: "default", name: "cm", subresource: "", dryRun: false, object: configMap({ a: "2" }), oldObject: configMap({ a: "1" }), user: admin }),
  },
  { title: "delete a ConfigMap", attributes: () => admissionAttributes({ operation: "DELETE", type: type("", "v1", "configmaps"), namespace: "default", name: "cm", subresource: "", dryRun: false, oldObject: configMap({ a: "1" }), user: admin }) },
  { title: "create a ConfigMap in a missing namespace", attributes: () => admissionAttributes({ operation: "CREATE", type: type("", "v1", "configmaps"), namespace: `missing-${plugin.toLowerCase()}`, name: "cm", subresource: "", dryRun: false, object: { ...configMap({}), metadata: { name: "cm", namespace: `missing-${plugin.toLowerCase()}` } }, user: admin }) },
  { title: "create a Pod", attributes: () => admissionAttributes({ operation: "CREATE", type: type("", "v1", "pods"), namespace: "default", name: "p", subresource: "", dryRun: false, object: pod("p"), user: admin }) },
  { title: "update a Pod's status", attributes: () => admissionAttributes({ operation: "UPDATE", type: type("", "v1", "pods"), namespace: "default", name: "p", subresource: "status", dryRun: false, object: { ...pod("p"), status: { phase: "Running" } }, oldObject: pod("p"), user: nodeUser }) },
  { title: "create a Pod as a node", attributes: () => admissionAttributes({ operation: "CREATE", type: type("", "v1", "pods"), namespace: "default", name: "p", subresource: "", dryRun: false, object: pod("p"), user: nodeUser }) },
  {
    title: "create a Service",
    attributes: () =>
      admissionAttributes({ operation: "CREATE", type: type("", "v1", "services"), namespace: "default", name: "s", subresource: "", dryRun: false, object: { apiVersion: "v1", kind: "Service", metadata: { name: "s", namespace: "default" }, spec: { ports: [{ port: 80 }], externalIPs: ["10.9.8.7"] } } as KObject, user: admin }),
  },
  {
    title: "create a Node",
    attributes: () => admissionAttributes({ operation: "CREATE", type: type("", "v1", "nodes"), namespace: "", name: "node-1", subresource: "", dryRun: false, object: { apiVersion: "v1", kind: "Node", metadata: { name: "node-1" }, spec: {} } as KObject, user: nodeUser }),
  },
  {
    title: "create a PersistentVolumeClaim",
    attributes: () =>
      admissionAttributes({
        operation: "CREATE",
        type: type("", "v1", "persistentvolumeclaims"),
        namespace: "default",
        name: "pvc",
        subresource: "",
        dryRun: false,
        object: { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "pvc", namespace: "default" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } } as KObject,
        user: admin,
      }),
  },
  { title: "delete the kube-system namespace", attributes: () => admissionAttributes({ operation: "DELETE", type: nsType, namespace: "", name: "kube-system", subresource: "", dryRun: false, oldObject: { apiVersion: "v1", kind: "Namespace", metadata: { name: "kube-system" } } as KObject, user: admin }) },
];

const titles = writesFor("").map((w) => w.title);

/** Outcomes some plugins must give, by write title (the rest only keep the contract). */
const expected: Partial<Record<AdmissionPluginName, Record<string, ExpectedOutcome>>> = {
  AlwaysAdmit: Object.fromEntries(titles.map((t) => [t, "unchanged"])),
  AlwaysDeny: Object.fromEntries(titles.map((t) => [t, { refused: 403 }])),
  NamespaceLifecycle: { "create a ConfigMap": "unchanged", "create a ConfigMap in a missing namespace": { refused: 404 }, "delete the kube-system namespace": { refused: 403 } },
  NamespaceExists: { "create a ConfigMap": "unchanged", "create a ConfigMap in a missing namespace": { refused: 404 } },
  NamespaceAutoProvision: { "create a ConfigMap in a missing namespace": "unchanged" },
  DenyServiceExternalIPs: { "create a Service": { refused: 403 }, "create a ConfigMap": "unchanged" },
  DefaultTolerationSeconds: { "create a Pod": "admitted", "create a ConfigMap": "unchanged" },
  AlwaysPullImages: { "create a Pod": "admitted", "create a ConfigMap": "unchanged" },
  NodeRestriction: { "create a Pod as a node": { refused: 403 }, "create a Pod": "unchanged" },
};

describe("every implemented admission plugin runs the conformance suite", () => {
  it("covers the plugins kapi implements (and they are known upstream names)", () => {
    expect(implementedAdmissionPlugins.length).toBeGreaterThan(30);
    for (const name of implementedAdmissionPlugins) expect(allOrderedPlugins).toContain(name);
  });
});

for (const name of implementedAdmissionPlugins) {
  const cases: AdmissionConformanceCase[] = writesFor(name).map((w) => ({ ...w, expect: expected[name]?.[w.title] }));
  admissionPluginConformance({ name, make: () => make(name), cases });
}
