import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { builtinSchema, builtinTypeRegistry } from "../types/register.js";
import { createDiscovery } from "./index.js";
import { call } from "./fake-exchange.testkit.js";

const { handler } = createDiscovery(builtinTypeRegistry((f) => f.enabledByDefault), { metaDefinitions: builtinSchema.definition });

async function index(): Promise<Record<string, { serverRelativeURL: string }>> {
  return (await call(handler, "/openapi/v3")).json().paths;
}

async function gvDoc(key: string): Promise<any> {
  return (await call(handler, (await index())[key].serverRelativeURL, { accept: "application/json" })).json();
}

/** Every $ref in a document must resolve inside components.schemas. */
function danglingRefs(doc: any): string[] {
  const out: string[] = [];
  const walk = (n: unknown) => {
    if (Array.isArray(n)) return n.forEach(walk);
    if (!n || typeof n !== "object") return;
    for (const [k, v] of Object.entries(n)) {
      if (k === "$ref") {
        const name = String(v).replace("#/components/schemas/", "");
        if (!doc.components.schemas[name]) out.push(String(v));
      } else walk(v);
    }
  };
  walk(doc);
  return out;
}

describe("OpenAPI v3", () => {
  it("index: one entry per served group-version and root, with content-hash URLs", async () => {
    const r = await call(handler, "/openapi/v3");
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.headers["cache-control"]).toBe("no-cache, private");
    const paths = r.json().paths;
    for (const k of ["api", "api/v1", "apis", "apis/apps", "apis/apps/v1", "apis/autoscaling/v2", "version"]) expect(paths[k], k).toBeDefined();
    expect(paths["apis/resource.k8s.io/v1beta1"]).toBeUndefined();
    const url: string = paths["apis/apps/v1"].serverRelativeURL;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);
    const doc = await call(handler, url);
    const hash = createHash("sha512").update(doc.body).digest("hex").toUpperCase();
    expect(url.endsWith(`hash=${hash}`)).toBe(true);
    expect(doc.headers["etag"]).toBe(`"${hash}"`);
    const again = await call(handler, "/openapi/v3", { "if-none-match": String(r.headers["etag"]) });
    expect(again.status).toBe(304);
  });

  it("hashed URL is immutable; stale hash redirects (301) to the current one; no hash is not cached", async () => {
    const url = (await index())["api/v1"].serverRelativeURL;
    const hashed = await call(handler, url);
    expect(hashed.status).toBe(200);
    expect(hashed.headers["cache-control"]).toBe("public, immutable");
    expect(hashed.headers["content-type"]).toBe("application/json");
    const stale = await call(handler, "/openapi/v3/api/v1?hash=ABC");
    expect(stale.status).toBe(301);
    expect(stale.headers["location"]).toBe(url);
    expect(stale.body).toBe("");
    const plain = await call(handler, "/openapi/v3/api/v1");
    expect(plain.status).toBe(200);
    expect(plain.headers["cache-control"]).toBe("no-cache, private");
    expect(plain.body).toBe(hashed.body);
    const cached = await call(handler, url, { "if-none-match": String(hashed.headers["etag"]) });
    expect(cached.status).toBe(304);
  });

  it("JSON only: protobuf-only Accept → 406; unknown documents → 404 Status", async () => {
    const pb = await call(handler, "/openapi/v3/api/v1", { accept: "application/com.github.proto-openapi.spec.v3@v1.0+protobuf" });
    expect(pb.status).toBe(406);
    const both = await call(handler, "/openapi/v3/api/v1", { accept: "application/com.github.proto-openapi.spec.v3@v1.0+protobuf, application/json" });
    expect(both.status).toBe(200);
    for (const path of ["/openapi/v3/apis/resource.k8s.io/v1beta1", "/openapi/v3/apis/nope/v1"]) {
      const r = await call(handler, path, { accept: "application/json" });
      expect(r.status, path).toBe(404);
      expect(r.json()).toMatchObject({ kind: "Status", reason: "NotFound" });
    }
  });

  it("PATCH carries the object GVK, fieldValidation and exactly the four patch media types", async () => {
    const doc = await gvDoc("apis/apps/v1");
    expect(doc.openapi).toBe("3.0.0");
    expect(doc.info).toEqual({ title: "Kubernetes", version: "v1.34.0" });
    const item = doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"];
    const patch = item.patch;
    expect(patch["x-kubernetes-action"]).toBe("patch");
    expect(patch["x-kubernetes-group-version-kind"]).toEqual({ group: "apps", version: "v1", kind: "Deployment" });
    expect(Object.keys(patch.requestBody.content).sort()).toEqual([
      "application/apply-patch+yaml",
      "application/json-patch+json",
      "application/merge-patch+json",
      "application/strategic-merge-patch+json",
    ]);
    const query = patch.parameters.filter((p: { in: string }) => p.in === "query").map((p: { name: string }) => p.name);
    expect(query).toEqual(expect.arrayContaining(["dryRun", "fieldManager", "fieldValidation", "force"]));
    expect(item.put.parameters.map((p: { name: string }) => p.name)).toContain("fieldValidation");
    expect(item.get["x-kubernetes-action"]).toBe("get");
    expect(item.delete["x-kubernetes-action"]).toBe("delete");
    const coll = doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments"];
    expect(coll.get["x-kubernetes-action"]).toBe("list");
    expect(coll.post["x-kubernetes-action"]).toBe("post");
    expect(coll.delete["x-kubernetes-action"]).toBe("deletecollection");
    expect(doc.paths["/apis/apps/v1/watch/namespaces/{namespace}/deployments/{name}"].get["x-kubernetes-action"]).toBe("watch");
    const scale = doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"];
    expect(scale.patch["x-kubernetes-group-version-kind"]).toEqual({ group: "autoscaling", version: "v1", kind: "Scale" });
    expect(doc.components.schemas["io.k8s.api.autoscaling.v1.Scale"]).toBeDefined();
    expect(danglingRefs(doc)).toEqual([]);
  });

  it("schemas: GVK extension, list/map markers, patch strategy beside an allOf-wrapped ref, no descriptions", async () => {
    const doc = await gvDoc("api/v1");
    const schemas = doc.components.schemas;
    expect(schemas["io.k8s.api.core.v1.Pod"]["x-kubernetes-group-version-kind"]).toEqual([{ group: "", kind: "Pod", version: "v1" }]);
    const containers = schemas["io.k8s.api.core.v1.PodSpec"].properties.containers;
    expect(containers).toMatchObject({
      type: "array",
      items: { $ref: "#/components/schemas/io.k8s.api.core.v1.Container" },
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-patch-merge-key": "name",
    });
    expect(schemas["io.k8s.api.core.v1.Pod"].properties.metadata).toEqual({ $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" });
    // A ref with siblings is wrapped, so OpenAPI 3.0 readers do not drop the markers.
    const wrapped: any[] = [];
    for (const s of Object.values<any>(schemas)) for (const p of Object.values<any>(s.properties ?? {})) if (p.allOf) wrapped.push(p);
    expect(wrapped.length).toBeGreaterThan(0);
    for (const p of wrapped) {
      expect(p.$ref).toBeUndefined();
      expect(p.allOf).toHaveLength(1);
      expect(Object.keys(p.allOf[0])).toEqual(["$ref"]);
    }
    expect(JSON.stringify(doc)).not.toContain('"description":"A ');
    expect(schemas["io.k8s.apimachinery.pkg.util.intstr.IntOrString"].oneOf).toBeDefined();
    expect(danglingRefs(doc)).toEqual([]);
  });

  it("kubectl explain can find pods.spec.containers: GVK on the operation matches the schema's list entry", async () => {
    const doc = await gvDoc("api/v1");
    const gvk = doc.paths["/api/v1/namespaces/{namespace}/pods/{name}"].get["x-kubernetes-group-version-kind"];
    const found = Object.values<any>(doc.components.schemas).find((s) =>
      (s["x-kubernetes-group-version-kind"] ?? []).some((g: object) => JSON.stringify(Object.entries(g).sort()) === JSON.stringify(Object.entries(gvk).sort())),
    );
    expect(found?.properties?.spec?.$ref).toBe("#/components/schemas/io.k8s.api.core.v1.PodSpec");
    const container = doc.components.schemas["io.k8s.api.core.v1.Container"];
    expect(Object.keys(container.properties)).toEqual(expect.arrayContaining(["name", "image", "ports", "env"]));
    // Cluster-scoped resources have no namespace segment; create-only ones only POST.
    expect(doc.paths["/api/v1/namespaces/{name}"].get["x-kubernetes-group-version-kind"].kind).toBe("Namespace");
    expect(Object.keys(doc.paths["/api/v1/namespaces/{namespace}/bindings"])).toEqual(["parameters", "post"]);
    expect(doc.paths["/api/v1/componentstatuses"].get["x-kubernetes-action"]).toBe("list");
    expect(doc.paths["/api/v1/componentstatuses/{name}"].patch).toBeUndefined();
  });
});
