import { describe, expect, it } from "vitest";
import { builtinTypeRegistry } from "../types/register.js";
import { createDiscovery } from "./index.js";
import { storageVersionHash } from "./storage-version-hash.js";
import { call } from "./fake-exchange.testkit.js";

const { handler } = createDiscovery(builtinTypeRegistry((f) => f.enabledByDefault));

describe("legacy discovery", () => {
  it("/api lists v1 and the address the request came to, without apiVersion", async () => {
    const r = await call(handler, "/api", { host: "kapi.example:6443" });
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.json()).toEqual({
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "kapi.example:6443" }],
    });
  });

  it("/apis lists named groups in aggregator priority order with preferred versions", async () => {
    const r = await call(handler, "/apis", { accept: "application/json" });
    const body = r.json();
    expect(body.kind).toBe("APIGroupList");
    expect(body.apiVersion).toBe("v1");
    const names = body.groups.map((g: { name: string }) => g.name);
    expect(names.slice(0, 4)).toEqual(["apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io"]);
    expect(names).not.toContain("");
    const autoscaling = body.groups.find((g: { name: string }) => g.name === "autoscaling");
    expect(autoscaling.versions.map((v: { version: string }) => v.version)).toEqual(["v2", "v1"]);
    expect(autoscaling.preferredVersion).toEqual({ groupVersion: "autoscaling/v2", version: "v2" });
    expect(autoscaling.serverAddressByClientCIDRs).toBeUndefined();
  });

  it("/apis/{group} answers one APIGroup", async () => {
    const r = await call(handler, "/apis/apps");
    expect(r.json()).toEqual({
      kind: "APIGroup",
      apiVersion: "v1",
      name: "apps",
      versions: [{ groupVersion: "apps/v1", version: "v1" }],
      preferredVersion: { groupVersion: "apps/v1", version: "v1" },
    });
  });

  it("/api/v1 lists pods with short names, storage hash and subresources as separate entries", async () => {
    const body = (await call(handler, "/api/v1")).json();
    expect(body.kind).toBe("APIResourceList");
    expect(body.apiVersion).toBeUndefined();
    expect(body.groupVersion).toBe("v1");
    const byName = new Map(body.resources.map((r: { name: string }) => [r.name, r]));
    expect(byName.get("pods")).toEqual({
      name: "pods",
      singularName: "pod",
      namespaced: true,
      kind: "Pod",
      verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
      shortNames: ["po"],
      categories: ["all"],
      storageVersionHash: "xPOwRZ+Yhw8=",
    });
    expect(byName.get("pods/status")).toEqual({ name: "pods/status", singularName: "", namespaced: true, kind: "Pod", verbs: ["get", "patch", "update"] });
    expect(byName.get("pods/eviction")).toEqual({
      name: "pods/eviction",
      singularName: "",
      namespaced: true,
      group: "policy",
      version: "v1",
      kind: "Eviction",
      verbs: ["create"],
    });
    // Sorted by name, subresources right after their parent.
    const names = body.resources.map((r: { name: string }) => r.name);
    expect(names).toEqual([...names].sort());
    expect(names.indexOf("pods/attach")).toBe(names.indexOf("pods") + 1);
  });

  it("cluster-scoped and unstored resources", async () => {
    const body = (await call(handler, "/api/v1")).json();
    const ns = body.resources.find((r: { name: string }) => r.name === "namespaces");
    expect(ns.namespaced).toBe(false);
    expect(ns.shortNames).toEqual(["ns"]);
    expect(ns.storageVersionHash).toBe("Q3oi5N2YM8M=");
    const cs = body.resources.find((r: { name: string }) => r.name === "componentstatuses");
    expect(cs.verbs).toEqual(["get", "list"]);
    expect(cs.shortNames).toEqual(["cs"]);
    expect(cs.storageVersionHash).toBeUndefined();
    const bindings = body.resources.find((r: { name: string }) => r.name === "bindings");
    expect(bindings.storageVersionHash).toBeUndefined();
  });

  it("/apis/apps/v1: deployments/scale is autoscaling/v1 Scale", async () => {
    const body = (await call(handler, "/apis/apps/v1")).json();
    expect(body.apiVersion).toBe("v1");
    const scale = body.resources.find((r: { name: string }) => r.name === "deployments/scale");
    expect(scale).toEqual({
      name: "deployments/scale",
      singularName: "",
      namespaced: true,
      group: "autoscaling",
      version: "v1",
      kind: "Scale",
      verbs: ["get", "patch", "update"],
    });
    const d = body.resources.find((r: { name: string }) => r.name === "deployments");
    expect(d.shortNames).toEqual(["deploy"]);
    expect(d.storageVersionHash).toBe(storageVersionHash("apps", "v1", "Deployment"));
  });

  it("storage version hash: SHA-256 of group/version/kind, 8 bytes, base64; shared by every served version", async () => {
    expect(storageVersionHash("", "v1", "Event")).toBe("r2yiGXH7wu8=");
    expect(storageVersionHash("apps", "v1", "Deployment")).toBe("8aSe+NMegvE=");
    // events.k8s.io events are stored as core v1 Events.
    const ev = (await call(handler, "/apis/events.k8s.io/v1")).json().resources.find((r: { name: string }) => r.name === "events");
    expect(ev.storageVersionHash).toBe("r2yiGXH7wu8=");
    const hpa1 = (await call(handler, "/apis/autoscaling/v1")).json().resources.find((r: { name: string }) => r.name === "horizontalpodautoscalers");
    const hpa2 = (await call(handler, "/apis/autoscaling/v2")).json().resources.find((r: { name: string }) => r.name === "horizontalpodautoscalers");
    expect(hpa1.storageVersionHash).toBe(hpa2.storageVersionHash);
    expect(hpa1.storageVersionHash).toBe(storageVersionHash("autoscaling", "v2", "HorizontalPodAutoscaler"));
  });

  it("unknown and disabled group-versions are 404 with a Status", async () => {
    for (const path of ["/apis/resource.k8s.io/v1beta1", "/apis/nope", "/apis/apps/v2", "/api/v2", "/apis/storagemigration.k8s.io"]) {
      const r = await call(handler, path);
      expect(r.handled, path).toBe(true);
      expect(r.status, path).toBe(404);
      expect(r.json()).toMatchObject({ kind: "Status", status: "Failure", reason: "NotFound", code: 404, message: "the server could not find the requested resource" });
    }
  });

  it("a group disabled by --runtime-config disappears from every document", async () => {
    const d = createDiscovery(builtinTypeRegistry((f) => f.enabledByDefault && f.group !== "batch"));
    const groups = (await call(d.handler, "/apis")).json().groups.map((g: { name: string }) => g.name);
    expect(groups).not.toContain("batch");
    expect((await call(d.handler, "/apis/batch/v1")).status).toBe(404);
    const agg = (await call(d.handler, "/apis", { accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" })).json();
    expect(agg.items.map((g: { metadata: { name: string } }) => g.metadata.name)).not.toContain("batch");
    const index = (await call(d.handler, "/openapi/v3")).json();
    expect(Object.keys(index.paths).filter((k) => k.startsWith("apis/batch"))).toEqual([]);
  });

  it("an enabled beta version joins its group without becoming preferred", async () => {
    const d = createDiscovery(builtinTypeRegistry((f) => f.enabledByDefault || (f.group === "resource.k8s.io" && f.version === "v1beta2")));
    const g = (await call(d.handler, "/apis/resource.k8s.io")).json();
    expect(g.versions.map((v: { version: string }) => v.version)).toEqual(["v1", "v1beta2"]);
    expect(g.preferredVersion.version).toBe("v1");
  });

  it("ETag and If-None-Match → 304", async () => {
    const r = await call(handler, "/apis/apps/v1");
    const etag = String(r.headers["etag"]);
    expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
    const again = await call(handler, "/apis/apps/v1", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.body).toBe("");
  });

  it("YAML on request; protobuf only → 406", async () => {
    const y = await call(handler, "/apis/apps", { accept: "application/yaml" });
    expect(y.headers["content-type"]).toBe("application/yaml");
    expect(y.body).toContain("name: apps");
    const pb = await call(handler, "/apis/apps", { accept: "application/vnd.kubernetes.protobuf" });
    expect(pb.status).toBe(406);
    // The error itself is a Status in the encoding the client accepts (upstream's ErrorNegotiated).
    expect(pb.headers["content-type"]).toBe("application/vnd.kubernetes.protobuf");
    expect(pb.body).toContain("NotAcceptable");
    const pbOrJson = await call(handler, "/apis/nope", { accept: "application/vnd.kubernetes.protobuf, application/json" });
    expect(pbOrJson.status).toBe(404);
    const fallback = await call(handler, "/apis/apps", { accept: "application/vnd.kubernetes.protobuf, application/json" });
    expect(fallback.status).toBe(200);
  });

  it("leaves other paths and methods to other handlers", async () => {
    expect((await call(handler, "/healthz")).handled).toBe(false);
    expect((await call(handler, "/apis", {}, "POST")).handled).toBe(false);
  });
});
