// Each type is served only at the paths of its scope, as upstream routes them: a cluster-scoped
// type (nodes, namespaces, clusterroles, a cluster-scoped custom resource) is not found below
// /namespaces/{namespace}/, and a namespaced one is not found at the cluster path except for
// listing and watching across all namespaces. Driven through kubectl and client-node.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoreV1Api, CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { req, startTestServer, type EmbeddedTestServer } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { crontabCRD } from "./support/crd.js";
import { servedOnceSettled } from "./support/settle.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const notFound = { kind: "Status", reason: "NotFound", code: 404, message: "the server could not find the requested resource" };

let s: EmbeddedTestServer;
let kubeconfigPath: string;
let custom: CustomObjectsApi;
let core: CoreV1Api;

beforeAll(async () => {
  s = await startTestServer({ storage: "memory" });
  kubeconfigPath = join(mkdtempSync(join(tmpdir(), "kapi-path-scope-")), "kubeconfig");
  writeFileSync(kubeconfigPath, s.kubeconfig);
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  custom = kc.makeApiClient(CustomObjectsApi);
  core = kc.makeApiClient(CoreV1Api);
  expect((await req(s, "POST", crdPath, { body: crontabCRD("scope.example.com", "gizmos", "Gizmo", { scope: "Cluster" }) })).status).toBe(201);
  expect((await req(s, "POST", crdPath, { body: crontabCRD("scope.example.com", "widgets", "Widget") })).status).toBe(201);
  await servedOnceSettled(s, "/apis/scope.example.com/v1/gizmos");
  await servedOnceSettled(s, "/apis/scope.example.com/v1/namespaces/default/widgets");
});
afterAll(async () => s?.stop());

describe("cluster-scoped types", () => {
  it("a custom resource is not served below a namespace (client-node)", async () => {
    const gizmo = { apiVersion: "scope.example.com/v1", kind: "Gizmo", metadata: { name: "g1" }, spec: { cronSpec: "* * * * *" } };
    await custom.createClusterCustomObject({ group: "scope.example.com", version: "v1", plural: "gizmos", body: gizmo });
    const ref = { group: "scope.example.com", version: "v1", plural: "gizmos", namespace: "default" };
    expect(await custom.getClusterCustomObject({ ...ref, name: "g1" })).toMatchObject({ metadata: { name: "g1" } });
    await expect(custom.getNamespacedCustomObject({ ...ref, name: "g1" })).rejects.toMatchObject({ code: 404 });
    await expect(custom.listNamespacedCustomObject(ref)).rejects.toMatchObject({ code: 404 });
    await expect(custom.createNamespacedCustomObject({ ...ref, body: { ...gizmo, metadata: { name: "g2" } } })).rejects.toMatchObject({ code: 404 });
    await expect(custom.deleteNamespacedCustomObject({ ...ref, name: "g1" })).rejects.toMatchObject({ code: 404 });
    expect((await req(s, "GET", "/apis/scope.example.com/v1/namespaces/default/gizmos/g1/status")).json).toMatchObject(notFound);
    // Nothing was created or deleted through those paths.
    expect((await custom.listClusterCustomObject({ group: "scope.example.com", version: "v1", plural: "gizmos" }) as any).items.map((i: any) => i.metadata.name)).toEqual(["g1"]);
  });

  it.skipIf(!kubectlBin)("nodes, namespaces and clusterroles are not served below a namespace (kubectl)", async () => {
    for (const path of [
      "/api/v1/namespaces/default/nodes",
      "/api/v1/namespaces/default/namespaces",
      "/api/v1/namespaces/default/namespaces/default",
      "/apis/rbac.authorization.k8s.io/v1/namespaces/default/clusterroles",
      "/apis/rbac.authorization.k8s.io/v1/namespaces/default/clusterroles/admin",
    ]) {
      const k = await kubectl(kubectlBin!, kubeconfigPath, ["get", "--raw", path]);
      expect(k.code, path).not.toBe(0);
      expect(k.stderr, path).toContain("the server could not find the requested resource");
      expect((await req(s, "GET", path)).json, path).toMatchObject(notFound);
    }
    // Their own paths still serve them, a Namespace's included.
    for (const path of ["/api/v1/namespaces/default", "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin"]) {
      expect((await kubectl(kubectlBin!, kubeconfigPath, ["get", "--raw", path])).code, path).toBe(0);
    }
  });
});

describe("namespaced types", () => {
  it("a custom resource is listed across namespaces but not otherwise served at the cluster path", async () => {
    const widget = { apiVersion: "scope.example.com/v1", kind: "Widget", metadata: { name: "w1", namespace: "default" }, spec: { cronSpec: "* * * * *" } };
    await custom.createNamespacedCustomObject({ group: "scope.example.com", version: "v1", plural: "widgets", namespace: "default", body: widget });
    const all: any = await custom.listClusterCustomObject({ group: "scope.example.com", version: "v1", plural: "widgets" });
    expect(all.items.map((i: any) => i.metadata.name)).toEqual(["w1"]);
    await expect(custom.getClusterCustomObject({ group: "scope.example.com", version: "v1", plural: "widgets", name: "w1" })).rejects.toMatchObject({ code: 404 });
    await expect(custom.deleteClusterCustomObject({ group: "scope.example.com", version: "v1", plural: "widgets", name: "w1" })).rejects.toMatchObject({ code: 404 });
    expect((await req(s, "GET", "/apis/scope.example.com/v1/widgets/w1/scale")).json).toMatchObject(notFound);
    expect((await req(s, "PUT", "/apis/scope.example.com/v1/widgets/w1/status", { body: widget })).json).toMatchObject(notFound);
  });

  it("a built-in one: configmaps listed across namespaces, one by name only below its namespace", async () => {
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "c1" }, data: { a: "1" } } });
    expect((await core.listConfigMapForAllNamespaces()).items.some((c) => c.metadata?.name === "c1")).toBe(true);
    expect((await req(s, "GET", "/api/v1/configmaps/c1")).json).toMatchObject(notFound);
    expect((await req(s, "GET", "/apis/apps/v1/deployments/d/scale")).json).toMatchObject(notFound);
  });
});
