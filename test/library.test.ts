// kapi as a library, driven by @kubernetes/client-node: two servers in one process share nothing.
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type KapiServer } from "../src/index.js";

function clients(s: KapiServer) {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(s.kubeconfig);
  return { core: kc.makeApiClient(k8s.CoreV1Api), apps: kc.makeApiClient(k8s.AppsV1Api) };
}

describe("startServer", () => {
  let a: KapiServer;
  let b: KapiServer;
  beforeAll(async () => {
    [a, b] = await Promise.all([startServer({ storage: "memory" }), startServer({ storage: "memory", options: { runtimeConfig: "apps/v1=false" } })]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("serves a real client", async () => {
    const { core } = clients(a);
    const created = await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "from-client" }, data: { k: "v" } } });
    expect(created.metadata?.uid).toBeTruthy();
    const list = await core.listNamespacedConfigMap({ namespace: "default" });
    expect(list.items.map((i) => i.metadata?.name)).toContain("from-client");
    const ns = await core.listNamespace();
    expect(ns.items.length).toBe(4);
    await core.deleteNamespacedConfigMap({ name: "from-client", namespace: "default" });
    await expect(core.readNamespacedConfigMap({ name: "from-client", namespace: "default" })).rejects.toMatchObject({ code: 404 });
  });

  it("keeps two servers apart: objects and flags", async () => {
    const ca = clients(a);
    const cb = clients(b);
    await ca.core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "only-in-a" } } });
    await expect(cb.core.readNamespacedConfigMap({ name: "only-in-a", namespace: "default" })).rejects.toMatchObject({ code: 404 });
    expect(a.port).not.toBe(b.port);
    const inA = await ca.apps.listNamespacedDeployment({ namespace: "default" });
    expect(inA.items).toEqual([]);
    await expect(cb.apps.listNamespacedDeployment({ namespace: "default" })).rejects.toMatchObject({ code: 404 });
  });

  it("allocates Service IPs per server (no shared pool)", async () => {
    const svc = { metadata: { name: "s" }, spec: { ports: [{ port: 80 }] } };
    const inA = await clients(a).core.createNamespacedService({ namespace: "default", body: svc });
    const inB = await clients(b).core.createNamespacedService({ namespace: "default", body: svc });
    expect(inA.spec?.clusterIP).toMatch(/^10\.0\.0\.\d+$/);
    expect(inB.spec?.clusterIP).toBe(inA.spec?.clusterIP);
    const apiService = await clients(a).core.readNamespacedService({ name: "kubernetes", namespace: "default" });
    expect(apiService.spec?.clusterIP).toBe("10.0.0.1");
  });
});
