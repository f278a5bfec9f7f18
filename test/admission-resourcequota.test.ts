// ResourceQuota end to end: the resourcequota controller fills status.hard/used, the ResourceQuota
// admission plugin refuses what would go over with upstream's 403 texts and charges what it
// admits, deletions are given back, scopes and scope selectors choose what a quota counts, custom
// resources are counted by count/<resource>.<group>, and a dry run is checked but never charged.
// Driven with kubectl and @kubernetes/client-node against a real server.
import * as k8s from "@kubernetes/client-node";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KapiServer } from "../src/index.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { req, withCredentials, type EmbeddedTestServer, type TestServer } from "./support/client.js";
import { whenSettled } from "./support/settle.js";
import { waitForRootCA } from "./support/namespaces.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
let server: KapiServer;
let s: EmbeddedTestServer;
let core: k8s.CoreV1Api;
let custom: k8s.CustomObjectsApi;

beforeAll(async () => {
  server = await startServer({ storage: "sqlite", dataDir: mkdtempSync(join(tmpdir(), "kapi-quota-")) });
  s = withCredentials(server);
  const kc = new k8s.KubeConfig();
  kc.loadFromString(server.kubeconfig);
  core = kc.makeApiClient(k8s.CoreV1Api);
  custom = kc.makeApiClient(k8s.CustomObjectsApi);
});
afterAll(async () => server?.stop());

/** A namespace, once its default ServiceAccount exists (ServiceAccount admission refuses pods before). */
async function mkns(name: string, server: EmbeddedTestServer = s): Promise<void> {
  const r = await req(server, "POST", "/api/v1/namespaces", { body: { metadata: { name } } });
  if (r.status !== 201) throw new Error(`namespace ${name}: ${r.status} ${r.text}`);
  await waitForRootCA(server, name); // settles: the default ServiceAccount is made too
  expect((await req(server, "GET", `/api/v1/namespaces/${name}/serviceaccounts/default`)).status).toBe(200);
}

async function quotaStatus(ns: string, name: string): Promise<any> {
  const r = await req(s, "GET", `/api/v1/namespaces/${ns}/resourcequotas/${name}`);
  return r.json?.status ?? {};
}

/** Once settled, the controller's status.used equals `used` exactly. */
async function waitUsed(ns: string, name: string, used: Record<string, string>): Promise<any> {
  return whenSettled(server, `${ns}/${name} used ${JSON.stringify(used)}`, async () => {
    const st = await quotaStatus(ns, name);
    return JSON.stringify(st.used) === JSON.stringify(used) ? st : undefined;
  });
}

async function createQuota(ns: string, name: string, spec: object): Promise<void> {
  const r = await req(s, "POST", `/api/v1/namespaces/${ns}/resourcequotas`, { body: { metadata: { name }, spec } });
  expect(r.status, r.text).toBe(201);
}

const pod = (name: string, extra: { resources?: object; spec?: object } = {}) => ({
  metadata: { name },
  spec: { containers: [{ name: "c", image: "nginx", ...(extra.resources ? { resources: extra.resources } : {}) }], ...(extra.spec ?? {}) },
});

async function postPod(ns: string, body: object, query = ""): Promise<{ status: number; json: any; text: string }> {
  return req(s, "POST", `/api/v1/namespaces/${ns}/pods${query}`, { body });
}

describe("object counts", () => {
  it("pods: the controller fills status, the third pod is refused with upstream's message (client-node), a deleted pod is given back", async () => {
    const ns = "quota-pods";
    await mkns(ns);
    await core.createNamespacedResourceQuota({ namespace: ns, body: { metadata: { name: "q" }, spec: { hard: { pods: "2" } } } });
    const st = await waitUsed(ns, "q", { pods: "0" });
    expect(st.hard).toEqual({ pods: "2" });

    await core.createNamespacedPod({ namespace: ns, body: pod("p1") });
    await core.createNamespacedPod({ namespace: ns, body: pod("p2") });
    expect((await quotaStatus(ns, "q")).used).toEqual({ pods: "2" }); // charged by admission, before the pod is stored

    const err = await core.createNamespacedPod({ namespace: ns, body: pod("p3") }).catch((e) => e);
    expect(err).toBeInstanceOf(k8s.ApiException);
    expect(err.code).toBe(403);
    const status = JSON.parse(err.body);
    expect(status).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Forbidden",
      code: 403,
      details: { name: "p3", kind: "pods" },
      message: 'pods "p3" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2',
    });

    await core.deleteNamespacedPod({ namespace: ns, name: "p1", gracePeriodSeconds: 0 });
    await waitUsed(ns, "q", { pods: "1" });
    await core.createNamespacedPod({ namespace: ns, body: pod("p3") });
    expect((await quotaStatus(ns, "q")).used).toEqual({ pods: "2" });
  });

  it.skipIf(!kubectlBin)("configmaps through kubectl: count/configmaps and the legacy name, exhausted, shown by kubectl get and describe", async () => {
    const ns = "quota-cm";
    await mkns(ns);
    const k = (...args: string[]) => kubectl(kubectlBin!, server.kubeconfigPath!, args);
    const made = await k("create", "quota", "cm", "-n", ns, "--hard=count/configmaps=3,configmaps=3");
    expect(made.code, made.stderr).toBe(0);
    // kube-root-ca.crt is counted, as on any cluster.
    await waitUsed(ns, "cm", { configmaps: "1", "count/configmaps": "1" });

    expect((await k("create", "configmap", "a", "-n", ns, "--from-literal=k=v")).code).toBe(0);
    expect((await k("create", "configmap", "b", "-n", ns, "--from-literal=k=v")).code).toBe(0);
    const refused = await k("create", "configmap", "c", "-n", ns, "--from-literal=k=v");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim()).toBe(
      'error: failed to create configmap: configmaps "c" is forbidden: exceeded quota: cm, requested: configmaps=1,count/configmaps=1, used: configmaps=3,count/configmaps=3, limited: configmaps=3,count/configmaps=3',
    );

    const get = await k("get", "quota", "cm", "-n", ns);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toMatch(/^NAME\s+REQUEST\s+LIMIT\s+AGE\ncm\s+configmaps: 3\/3, count\/configmaps: 3\/3\s+\S+\n$/);
    const describeOut = await k("describe", "quota", "cm", "-n", ns);
    expect(describeOut.code, describeOut.stderr).toBe(0);
    expect(describeOut.stdout).toMatch(/Resource\s+Used\s+Hard\n\s*--------\s+----\s+----\nconfigmaps\s+3\s+3\ncount\/configmaps\s+3\s+3\n/);

    const nsOut = await k("describe", "namespace", ns);
    expect(nsOut.code, nsOut.stderr).toBe(0);
    expect(nsOut.stdout).toMatch(/Resource Quotas\n\s+Name:\s+cm\n\s+Resource\s+Used\s+Hard\n\s+--------\s+---\s+---\n\s+configmaps\s+3\s+3\n\s+count\/configmaps\s+3\s+3\n/);

    // A deletion gives the count back.
    expect((await k("delete", "configmap", "a", "-n", ns)).code).toBe(0);
    await waitUsed(ns, "cm", { configmaps: "2", "count/configmaps": "2" });
    expect((await k("create", "configmap", "c", "-n", ns, "--from-literal=k=v")).code).toBe(0);
  });

  it("concurrent creates never go over: 8 at once under count/secrets=3", async () => {
    const ns = "quota-race";
    await mkns(ns);
    await createQuota(ns, "s", { hard: { "count/secrets": "3" } });
    await waitUsed(ns, "s", { "count/secrets": "0" });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => req(s, "POST", `/api/v1/namespaces/${ns}/secrets`, { body: { metadata: { name: `s${i}` }, stringData: { a: "b" } } })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 403)).toHaveLength(5);
    for (const r of results.filter((x) => x.status === 403)) expect(r.json.message).toMatch(/exceeded quota: s, requested: count\/secrets=1, used: count\/secrets=3, limited: count\/secrets=3$/);
    const list = await req(s, "GET", `/api/v1/namespaces/${ns}/secrets`);
    expect(list.json.items).toHaveLength(3);
    await server.settle(); // the quota controller's recount is done: what it says now is final
    expect((await quotaStatus(ns, "s")).used).toEqual({ "count/secrets": "3" });
  });
});

describe("compute resources", () => {
  it("requests.cpu/memory: containers must state them, usage adds up, the pod going over is refused", async () => {
    const ns = "quota-compute";
    await mkns(ns);
    await createQuota(ns, "compute", { hard: { "requests.cpu": "1", "requests.memory": "1Gi", "limits.memory": "2Gi" } });
    await waitUsed(ns, "compute", { "limits.memory": "0", "requests.cpu": "0", "requests.memory": "0" });

    const bare = await postPod(ns, pod("bare"));
    expect(bare.status).toBe(403);
    expect(bare.json.message).toBe('pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: c; requests.cpu for: c; requests.memory for: c');

    const sized = (name: string, cpu: string, mem: string) => pod(name, { resources: { requests: { cpu, memory: mem }, limits: { memory: mem } } });
    expect((await postPod(ns, sized("a", "600m", "512Mi"))).status).toBe(201);
    await waitUsed(ns, "compute", { "limits.memory": "512Mi", "requests.cpu": "600m", "requests.memory": "512Mi" });
    const over = await postPod(ns, sized("b", "500m", "256Mi"));
    expect(over.status).toBe(403);
    expect(over.json.message).toBe('pods "b" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1');
    expect((await postPod(ns, sized("c", "400m", "512Mi"))).status).toBe(201);
    expect((await quotaStatus(ns, "compute")).used).toEqual({ "limits.memory": "1Gi", "requests.cpu": "1", "requests.memory": "1Gi" });

    // A terminal pod no longer counts (its count/pods would): the controller gives its requests back.
    const pa = (await req(s, "GET", `/api/v1/namespaces/${ns}/pods/a`)).json;
    const done = await req(s, "PUT", `/api/v1/namespaces/${ns}/pods/a/status`, { body: { ...pa, status: { ...pa.status, phase: "Succeeded" } } });
    expect(done.status, done.text).toBe(200);
    await waitUsed(ns, "compute", { "limits.memory": "512Mi", "requests.cpu": "400m", "requests.memory": "512Mi" });
  });
});

describe("scopes", () => {
  it("BestEffort and NotBestEffort quotas count only their pods", async () => {
    const ns = "quota-scopes";
    await mkns(ns);
    await createQuota(ns, "be", { hard: { pods: "1" }, scopes: ["BestEffort"] });
    await createQuota(ns, "nbe", { hard: { pods: "1" }, scopes: ["NotBestEffort"] });
    await waitUsed(ns, "be", { pods: "0" });
    await waitUsed(ns, "nbe", { pods: "0" });
    expect((await postPod(ns, pod("be1"))).status).toBe(201);
    const be2 = await postPod(ns, pod("be2"));
    expect(be2.status).toBe(403);
    expect(be2.json.message).toBe('pods "be2" is forbidden: exceeded quota: be, requested: pods=1, used: pods=1, limited: pods=1');
    expect((await postPod(ns, pod("burst", { resources: { requests: { cpu: "100m" } } }))).status).toBe(201);
    expect((await quotaStatus(ns, "be")).used).toEqual({ pods: "1" });
    expect((await quotaStatus(ns, "nbe")).used).toEqual({ pods: "1" });
  });

  it("Terminating counts pods with activeDeadlineSeconds; a PriorityClass scopeSelector (In, NotIn) counts by class", async () => {
    const ns = "quota-selector";
    await mkns(ns);
    for (const name of ["high", "low"]) {
      const r = await req(s, "POST", "/apis/scheduling.k8s.io/v1/priorityclasses", { body: { metadata: { name: `quota-${name}` }, value: name === "high" ? 1000 : 10 } });
      expect(r.status, r.text).toBe(201);
    }
    await createQuota(ns, "term", { hard: { pods: "1" }, scopes: ["Terminating"] });
    await createQuota(ns, "high", { hard: { pods: "1" }, scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: ["quota-high"] }] } });
    await createQuota(ns, "nothigh", { hard: { pods: "5" }, scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "NotIn", values: ["quota-high"] }] } });
    for (const q of ["term", "high", "nothigh"]) await waitUsed(ns, q, { pods: "0" });

    expect((await postPod(ns, pod("t1", { spec: { activeDeadlineSeconds: 60 } }))).status).toBe(201);
    expect((await postPod(ns, pod("t2", { spec: { activeDeadlineSeconds: 60 } }))).json.message).toBe(
      'pods "t2" is forbidden: exceeded quota: term, requested: pods=1, used: pods=1, limited: pods=1',
    );
    expect((await postPod(ns, pod("h1", { spec: { priorityClassName: "quota-high" } }))).status).toBe(201);
    const h2 = await postPod(ns, pod("h2", { spec: { priorityClassName: "quota-high" } }));
    expect(h2.status).toBe(403);
    expect(h2.json.message).toBe('pods "h2" is forbidden: exceeded quota: high, requested: pods=1, used: pods=1, limited: pods=1');
    expect((await postPod(ns, pod("l1", { spec: { priorityClassName: "quota-low" } }))).status).toBe(201);
    // t1, h1's quota excluded: nothigh counts t1 (no class) and l1.
    expect((await quotaStatus(ns, "nothigh")).used).toEqual({ pods: "2" });
    expect((await quotaStatus(ns, "high")).used).toEqual({ pods: "1" });
  });

  it("scopes are validated as upstream (identical errors reported once)", async () => {
    const ns = "quota-invalid";
    await mkns(ns);
    const r = await req(s, "POST", `/api/v1/namespaces/${ns}/resourcequotas`, { body: { metadata: { name: "bad" }, spec: { hard: { "requests.storage": "1Gi" }, scopes: ["BestEffort", "NotBestEffort"] } } });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(
      'ResourceQuota "bad" is invalid: [spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: unsupported scope applied to resource, spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: conflicting scopes]',
    );
    const neg = await req(s, "POST", `/api/v1/namespaces/${ns}/resourcequotas`, { body: { metadata: { name: "neg" }, spec: { hard: { pods: "-1", cpu: "1.5" } } } });
    expect(neg.status).toBe(422);
    expect(neg.json.message).toBe('ResourceQuota "neg" is invalid: spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0');
  });
});

describe("services and claims", () => {
  it("services.loadbalancers and per-storage-class requests.storage", async () => {
    const ns = "quota-svc-pvc";
    await mkns(ns);
    await createQuota(ns, "net", { hard: { services: "5", "services.loadbalancers": "0" } });
    await createQuota(ns, "disk", { hard: { "gold.storageclass.storage.k8s.io/requests.storage": "1Gi", persistentvolumeclaims: "3" } });
    await waitUsed(ns, "net", { services: "0", "services.loadbalancers": "0" });
    await waitUsed(ns, "disk", { "gold.storageclass.storage.k8s.io/requests.storage": "0", persistentvolumeclaims: "0" });
    const svc = (name: string, type: string) => ({ metadata: { name }, spec: { type, ports: [{ port: 80 }], selector: { app: "x" } } });
    expect((await req(s, "POST", `/api/v1/namespaces/${ns}/services`, { body: svc("plain", "ClusterIP") })).status).toBe(201);
    const lb = await req(s, "POST", `/api/v1/namespaces/${ns}/services`, { body: svc("lb", "LoadBalancer") });
    expect(lb.status).toBe(403);
    expect(lb.json.message).toBe('services "lb" is forbidden: exceeded quota: net, requested: services.loadbalancers=1, used: services.loadbalancers=0, limited: services.loadbalancers=0');

    const pvc = (name: string, cls: string, size: string) => ({ metadata: { name }, spec: { storageClassName: cls, accessModes: ["ReadWriteOnce"], resources: { requests: { storage: size } } } });
    expect((await req(s, "POST", `/api/v1/namespaces/${ns}/persistentvolumeclaims`, { body: pvc("g1", "gold", "600Mi") })).status).toBe(201);
    const g2 = await req(s, "POST", `/api/v1/namespaces/${ns}/persistentvolumeclaims`, { body: pvc("g2", "gold", "600Mi") });
    expect(g2.status).toBe(403);
    expect(g2.json.message).toBe(
      'persistentvolumeclaims "g2" is forbidden: exceeded quota: disk, requested: gold.storageclass.storage.k8s.io/requests.storage=600Mi, used: gold.storageclass.storage.k8s.io/requests.storage=600Mi, limited: gold.storageclass.storage.k8s.io/requests.storage=1Gi',
    );
    expect((await req(s, "POST", `/api/v1/namespaces/${ns}/persistentvolumeclaims`, { body: pvc("s1", "silver", "5Gi") })).status).toBe(201);
    expect((await quotaStatus(ns, "disk")).used).toEqual({ "gold.storageclass.storage.k8s.io/requests.storage": "600Mi", persistentvolumeclaims: "2" });
  });
});

describe("resource claims", () => {
  it("devices per device class (resource.k8s.io/v1)", async () => {
    const ns = "quota-dra";
    await mkns(ns);
    const perClass = "gpu.example.com.deviceclass.resource.k8s.io/devices";
    await createQuota(ns, "dra", { hard: { [perClass]: "2", "count/resourceclaims.resource.k8s.io": "5" } });
    await waitUsed(ns, "dra", { "count/resourceclaims.resource.k8s.io": "0", [perClass]: "0" });
    const claim = (name: string, count: number) => ({
      apiVersion: "resource.k8s.io/v1",
      kind: "ResourceClaim",
      metadata: { name },
      spec: { devices: { requests: [{ name: "gpu", exactly: { deviceClassName: "gpu.example.com", allocationMode: "ExactCount", count } }] } },
    });
    const first = await req(s, "POST", `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`, { body: claim("c1", 2) });
    expect(first.status, first.text).toBe(201);
    const second = await req(s, "POST", `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`, { body: claim("c2", 1) });
    expect(second.status).toBe(403);
    expect(second.json.message).toBe(
      `resourceclaims.resource.k8s.io "c2" is forbidden: exceeded quota: dra, requested: ${perClass}=1, used: ${perClass}=2, limited: ${perClass}=2`,
    );
  });
});

describe("custom resources", () => {
  it("count/widgets.example.com limits a custom resource (client-node)", async () => {
    const ns = "quota-cr";
    await mkns(ns);
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.example.com" },
      spec: {
        group: "example.com",
        scope: "Namespaced",
        names: { plural: "widgets", singular: "widget", kind: "Widget" },
        versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
      },
    };
    expect((await req(s, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: crd })).status).toBe(201);
    await whenSettled(server, "widgets served", async () => ((await req(s, "GET", `/apis/example.com/v1/namespaces/${ns}/widgets`)).status === 200 ? true : undefined));
    await createQuota(ns, "crq", { hard: { "count/widgets.example.com": "1" } });
    await waitUsed(ns, "crq", { "count/widgets.example.com": "0" });
    const widget = (name: string) => ({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name } });
    await custom.createNamespacedCustomObject({ group: "example.com", version: "v1", namespace: ns, plural: "widgets", body: widget("w1") });
    const err = await custom.createNamespacedCustomObject({ group: "example.com", version: "v1", namespace: ns, plural: "widgets", body: widget("w2") }).catch((e) => e);
    expect(err.code).toBe(403);
    expect(JSON.parse(err.body).message).toBe(
      'widgets.example.com "w2" is forbidden: exceeded quota: crq, requested: count/widgets.example.com=1, used: count/widgets.example.com=1, limited: count/widgets.example.com=1',
    );
  });

  // The controller's informer of the custom resource has its cache replaced while the object is
  // made and removed (the admission plugin asks for the full cache): it must still hear both.
  it("a deleted custom object is given back by the controller", async () => {
    const ns = "quota-cr";
    await custom.deleteNamespacedCustomObject({ group: "example.com", version: "v1", namespace: ns, plural: "widgets", name: "w1" });
    // Settled: the informer whose watch ended with the replaced cache is work on its way until it
    // has listed again (src/registry/informer.ts, quiet()).
    await waitUsed(ns, "crq", { "count/widgets.example.com": "0" });
    await custom.createNamespacedCustomObject({ group: "example.com", version: "v1", namespace: ns, plural: "widgets", body: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w2" } } });
  });
});

describe("dry run", () => {
  it("is checked against the quota but never charged (client-node and kubectl)", async () => {
    const ns = "quota-dryrun";
    await mkns(ns);
    await createQuota(ns, "q", { hard: { pods: "1" } });
    await waitUsed(ns, "q", { pods: "0" });
    const dry = await core.createNamespacedPod({ namespace: ns, body: pod("d1"), dryRun: "All" });
    expect(dry.metadata?.name).toBe("d1");
    if (kubectlBin) {
      const k = await kubectl(kubectlBin, server.kubeconfigPath!, ["run", "d2", "-n", ns, "--image=nginx", "--dry-run=server", "-o", "name"]);
      expect(k.code, k.stderr).toBe(0);
      expect(k.stdout.trim()).toBe("pod/d2");
    }
    await server.settle(); // a dry run charged nothing, even after the quota controller's recount
    expect((await quotaStatus(ns, "q")).used).toEqual({ pods: "0" });
    expect((await req(s, "GET", `/api/v1/namespaces/${ns}/pods`)).json.items).toHaveLength(0);

    await core.createNamespacedPod({ namespace: ns, body: pod("real") });
    const refused = await postPod(ns, pod("d3"), "?dryRun=All");
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe('pods "d3" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1');
    expect((await quotaStatus(ns, "q")).used).toEqual({ pods: "1" });
  });
});

describe("controller", () => {
  it("raising spec.hard updates status.hard; an object created before the quota is counted", async () => {
    const ns = "quota-ctl";
    await mkns(ns);
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "early" } } });
    await createQuota(ns, "q", { hard: { "count/configmaps": "2" } });
    const st = await waitUsed(ns, "q", { "count/configmaps": "2" }); // early and kube-root-ca.crt
    expect(st.hard).toEqual({ "count/configmaps": "2" });
    const refused = await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: "late" } } });
    expect(refused.status).toBe(403);
    const patched = await req(s, "PATCH", `/api/v1/namespaces/${ns}/resourcequotas/q`, {
      body: { spec: { hard: { "count/configmaps": "3" } } },
      headers: { "content-type": "application/merge-patch+json" },
    });
    expect(patched.status, patched.text).toBe(200);
    await whenSettled(server, "status.hard raised", async () => ((await quotaStatus(ns, "q")).hard?.["count/configmaps"] === "3" ? true : undefined));
    expect((await req(s, "POST", `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: "late" } } })).status).toBe(201);

    // Nothing counts example.com/foo: status.hard only, no used (Go leaves the empty map out).
    await createQuota(ns, "uncounted", { hard: { "example.com/foo": "3" } });
    const other = await whenSettled(server, "uncounted synced", async () => {
      const st = await quotaStatus(ns, "uncounted");
      return st.hard ? st : undefined;
    });
    expect(other).toEqual({ hard: { "example.com/foo": "3" } });
  });
});

describe("configuration and --controllers", () => {
  let other: EmbeddedTestServer;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "kapi-quota-config-"));
    const configPath = join(dir, "admission.yaml");
    writeFileSync(
      configPath,
      [
        "apiVersion: apiserver.config.k8s.io/v1",
        "kind: AdmissionConfiguration",
        "plugins:",
        "- name: ResourceQuota",
        "  configuration:",
        "    apiVersion: apiserver.config.k8s.io/v1",
        "    kind: ResourceQuotaConfiguration",
        "    limitedResources:",
        "    - resource: pods",
        "      matchScopes:",
        "      - scopeName: PriorityClass",
        "        operator: In",
        "        values: [cluster-services]",
        "",
      ].join("\n"),
    );
    other = withCredentials(
      (await startServer({ storage: "sqlite", dataDir: dir, options: { admissionControlConfigFile: configPath, controllers: ["*", "-resourcequota-controller"] } })),
    );
  });
  afterAll(async () => other?.stop());

  it("limitedResources: a pod of a limited PriorityClass needs a quota whose scopes cover it; with the controller off, status is what a writer puts there", async () => {
    const ns = "quota-limited";
    await mkns(ns, other);
    expect((await req(other, "POST", "/apis/scheduling.k8s.io/v1/priorityclasses", { body: { metadata: { name: "cluster-services" }, value: 100000 } })).status).toBe(201);
    const critical = pod("crit", { spec: { priorityClassName: "cluster-services" } });
    const refused = await req(other, "POST", `/api/v1/namespaces/${ns}/pods`, { body: critical });
    expect(refused.status).toBe(500);
    expect(refused.json.message).toBe("insufficient quota to match these scopes: [{PriorityClass In [cluster-services]}]");
    expect((await req(other, "POST", `/api/v1/namespaces/${ns}/pods`, { body: pod("ordinary") })).status).toBe(201);

    const covering = { metadata: { name: "cs" }, spec: { hard: { pods: "1" }, scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: ["cluster-services"] }] } } };
    expect((await req(other, "POST", `/api/v1/namespaces/${ns}/resourcequotas`, { body: covering })).status).toBe(201);
    await other.settle(); // the other controllers have run: still no status, its controller is off
    const unsynced = await req(other, "GET", `/api/v1/namespaces/${ns}/resourcequotas/cs`);
    expect(unsynced.json.status ?? {}).toEqual({}); // resourcequota-controller is off
    // A quota whose scopes match covers the scope even before it has a status (as upstream): admitted, charged nowhere.
    expect((await req(other, "POST", `/api/v1/namespaces/${ns}/pods`, { body: critical })).status).toBe(201);
    const withStatus = await req(other, "PUT", `/api/v1/namespaces/${ns}/resourcequotas/cs/status`, { body: { ...unsynced.json, status: { hard: { pods: "1" }, used: { pods: "0" } } } });
    expect(withStatus.status, withStatus.text).toBe(200);
    expect((await req(other, "POST", `/api/v1/namespaces/${ns}/pods`, { body: pod("crit2", { spec: { priorityClassName: "cluster-services" } }) })).status).toBe(201);
    const over = await req(other, "POST", `/api/v1/namespaces/${ns}/pods`, { body: pod("crit3", { spec: { priorityClassName: "cluster-services" } }) });
    expect(over.json.message).toBe('pods "crit3" is forbidden: exceeded quota: cs, requested: pods=1, used: pods=1, limited: pods=1');
    expect((await req(other, "GET", `/api/v1/namespaces/${ns}/resourcequotas/cs`)).json.status.used).toEqual({ pods: "1" });
  });
});
