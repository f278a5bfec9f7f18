// A type registered while the server runs is served like any other — discovery, kubectl,
// @kubernetes/client-node, watches — and removing it ends its watches, drops it from discovery
// and makes its paths 404, as kube-apiserver does when a custom resource definition goes.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CustomObjectsApi, KubeConfig, Watch } from "@kubernetes/client-node";
import { req, watchEvents } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { widgetGroup, widgetType } from "./support/widget-type.js";
import { sleep, startTuned, type PartsServer } from "./support/list-watch.js";

const group = widgetGroup;
const base = `/apis/${group}/v1`;
const aggregated = { accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" };
const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);

let s: PartsServer;
let dir: string;
let api: CustomObjectsApi;
let kc: KubeConfig;

beforeAll(async () => {
  s = await startTuned();
  dir = mkdtempSync(join(tmpdir(), "kapi-runtime-types-"));
  writeFileSync(join(dir, "kubeconfig"), s.kubeconfig);
  kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  api = kc.makeApiClient(CustomObjectsApi);
});
afterAll(async () => {
  await s?.stop();
});

/** kubectl with a discovery cache of its own (a fresh one: `cache` names a new directory). */
async function k(...args: string[]) {
  return kubectlWithCache("cache", ...args);
}
async function kubectlWithCache(cache: string, ...args: string[]) {
  return kubectl(kubectlBin!, join(dir, "kubeconfig"), [`--cache-dir=${join(dir, cache)}`, ...args]);
}

/** Rejects when `p` has not settled within `ms`. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, sleep(ms).then(() => Promise.reject(new Error(`${what} did not happen within ${ms} ms`)))]);
}

const widget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: `${group}/v1`, kind: "Widget", metadata: { name, namespace: "default" }, spec });
const collection = () => ({ group, version: "v1", namespace: "default", plural: "widgets" });
const ref = (name: string) => ({ ...collection(), name });

describe("a type registered at run time", () => {
  it("appears in legacy and aggregated discovery", async () => {
    expect((await req(s, "GET", base)).status).toBe(404);
    s.parts.types.add(widgetType());
    const list = await req(s, "GET", base);
    expect(list.status).toBe(200);
    expect(list.json.resources.map((r: any) => r.name)).toEqual(["widgets", "widgets/scale", "widgets/status"]);
    expect((await req(s, "GET", "/apis")).json.groups.map((g: any) => g.name)).toContain(group);
    const agg = await req(s, "GET", "/apis", { headers: aggregated });
    const entry = agg.json.items.find((g: any) => g.metadata.name === group);
    expect(entry.versions[0].resources.map((r: any) => r.resource)).toEqual(["widgets"]);
  });

  it("is created, read, listed, updated (object and status) and deleted through @kubernetes/client-node", async () => {
    const created: any = await api.createNamespacedCustomObject({ ...collection(), body: widget("w1", { color: "red", replicas: 1 }) });
    expect(created.metadata.uid).toBeTruthy();
    expect(created.metadata.generation).toBe(1);
    const got: any = await api.getNamespacedCustomObject(ref("w1"));
    expect(got.spec).toEqual({ color: "red", replicas: 1 });
    await api.createNamespacedCustomObject({ ...collection(), body: widget("w2", { color: "blue" }) });
    const list: any = await api.listNamespacedCustomObject(collection());
    expect(list.kind).toBe("WidgetList");
    expect(list.items.map((i: any) => i.metadata.name)).toEqual(["w1", "w2"]);
    const blue: any = await api.listNamespacedCustomObject({ ...collection(), fieldSelector: "spec.color=blue" });
    expect(blue.items.map((i: any) => i.metadata.name)).toEqual(["w2"]);

    // The main resource ignores status; /status changes only status.
    const replaced: any = await api.replaceNamespacedCustomObject({ ...ref("w1"), body: { ...got, spec: { color: "green", replicas: 1 }, status: { ignored: true } } });
    expect(replaced.spec.color).toBe("green");
    expect(replaced.status).toBeUndefined();
    expect(replaced.metadata.generation).toBe(2);
    const status: any = await api.replaceNamespacedCustomObjectStatus({ ...ref("w1"), body: { ...replaced, spec: { color: "ignored" }, status: { replicas: 1, selector: "app=w1" } } });
    expect(status.status).toEqual({ replicas: 1, selector: "app=w1" });
    expect(status.spec.color).toBe("green");

    await api.deleteNamespacedCustomObject(ref("w2"));
    await expect(api.getNamespacedCustomObject(ref("w2"))).rejects.toMatchObject({ code: 404 });
  });

  it("answers in JSON only (no protobuf form) and refuses strategic merge patch, as for custom resources", async () => {
    const pb = await req(s, "GET", `${base}/namespaces/default/widgets/w1`, { headers: { accept: "application/vnd.kubernetes.protobuf" } });
    expect(pb.status).toBe(406);
    const either = await req(s, "GET", `${base}/namespaces/default/widgets/w1`, { headers: { accept: "application/vnd.kubernetes.protobuf, application/json" } });
    expect(either.headers["content-type"]).toBe("application/json");
    const smp = await req(s, "PATCH", `${base}/namespaces/default/widgets/w1`, { body: { spec: { color: "x" } }, headers: { "content-type": "application/strategic-merge-patch+json" } });
    expect(smp.status).toBe(415);
  });

  it.skipIf(!kubectlBin)("works with kubectl: api-resources, get by short name, patch, scale, table output", async () => {
    const resources = await k("api-resources", `--api-group=${group}`, "--no-headers");
    expect(resources.stdout).toMatch(/^widgets\s+wd\s+example\.kapi\.dev\/v1\s+true\s+Widget\s*$/m);
    expect((await k("patch", "wd", "w1", "--type=merge", "-p", '{"spec":{"color":"yellow"}}')).stdout).toBe("widget.example.kapi.dev/w1 patched\n");
    expect((await k("scale", "widget", "w1", "--replicas=3")).stdout).toBe("widget.example.kapi.dev/w1 scaled\n");
    const w1 = JSON.parse((await k("get", "widget", "w1", "-o", "json")).stdout);
    expect(w1.spec).toEqual({ color: "yellow", replicas: 3 });
    const scale = await req(s, "GET", `${base}/namespaces/default/widgets/w1/scale`);
    expect(scale.json).toMatchObject({ kind: "Scale", spec: { replicas: 3 }, status: { replicas: 1, selector: "app=w1" } });
    const table = await k("get", "wd");
    expect(table.stdout).toMatch(/^NAME\s+CREATED AT\nw1\s+\d{4}-/);
  });

  it("streams its changes to a watch", async () => {
    const seen = watchEvents(s, `${base}/namespaces/default/widgets?watch=1&resourceVersion=0`, (evs) => evs.some((e) => e.type === "ADDED" && e.object.metadata.name === "w3"));
    await seen.opened;
    await api.createNamespacedCustomObject({ ...collection(), body: widget("w3", {}) });
    const events = await seen;
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED w1", "ADDED w3"]);
    expect(events[1].object.apiVersion).toBe(`${group}/v1`);
  });
});

describe("removing the type", () => {
  it("ends its open watches, drops it from discovery and makes its paths 404", async () => {
    let connected!: Promise<unknown>;
    const ended = new Promise<unknown>((resolve) => {
      connected = new Watch(kc).watch(`${base}/namespaces/default/widgets`, {}, () => undefined, resolve);
    });
    const raw = watchEvents(s, `${base}/widgets?watch=1&resourceVersion=0`, () => false, 30_000);
    await Promise.all([connected, raw.opened]); // both streams are open (client-node's watch() resolves on the response)
    const watchesBefore = s.parts.streams.size;
    expect(watchesBefore).toBeGreaterThanOrEqual(2);

    s.parts.types.remove(group, "v1", "widgets");

    // The stream ends without an ERROR event: upstream's cacher closes the watch as its storage goes.
    const events = await within(raw, 5000, "the end of the raw watch");
    expect(events.map((e) => e.type)).toEqual(["ADDED", "ADDED"]);
    expect(await within(ended, 5000, "the end of the client-node watch")).toBeFalsy();
    expect(s.parts.streams.size).toBe(watchesBefore - 2);
    expect(s.parts.cacher.peek("/registry/example.kapi.dev/widgets/")).toBeUndefined();

    expect((await req(s, "GET", "/apis")).json.groups.map((g: any) => g.name)).not.toContain(group);
    expect((await req(s, "GET", "/apis", { headers: aggregated })).json.items.map((g: any) => g.metadata.name)).not.toContain(group);
    expect((await req(s, "GET", base)).status).toBe(404);
    expect((await req(s, "GET", `${base}/namespaces/default/widgets/w1`)).status).toBe(404);
    expect((await req(s, "GET", `${base}/namespaces/default/widgets?watch=1`)).status).toBe(404);
    await expect(api.listNamespacedCustomObject(collection())).rejects.toMatchObject({ code: 404 });
    if (kubectlBin) {
      // A kubectl that cached discovery before the removal gets 404 from the path; a fresh one no longer knows the type.
      expect((await k("get", "widgets")).stderr).toContain("Error from server (NotFound)");
      expect((await kubectlWithCache("cache-after", "get", "widgets")).stderr).toContain(`the server doesn't have a resource type "widgets"`);
    }
  });

  it("keeps the stored objects: registering the type again serves them from a fresh cache", async () => {
    s.parts.types.add(widgetType());
    const list: any = await api.listNamespacedCustomObject({ ...collection(), resourceVersion: "0" });
    expect(list.items.map((i: any) => i.metadata.name)).toEqual(["w1", "w3"]);
  });
});
