// Discovery and OpenAPI follow the type registry: a type added, changed or removed after the
// documents were first served shows up (or disappears) on the next request, with new ETags.
import { describe, expect, it } from "vitest";
import { builtinSchema, builtinTypeRegistry } from "../types/register.js";
import { widgetGroup, widgetType } from "../../test/support/widget-type.js";
import { createDiscovery } from "./index.js";
import { call } from "./fake-exchange.testkit.js";

const aggregatedAccept = { accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" };

function setup() {
  const types = builtinTypeRegistry((f) => f.enabledByDefault);
  const { handler, stop } = createDiscovery(types, { metaDefinitions: builtinSchema.definition });
  return { types, handler, stop };
}

const groupNames = (apis: any): string[] => apis.groups.map((g: any) => g.name);
const aggregatedGroups = (list: any): string[] => list.items.map((g: any) => g.metadata.name);

describe("discovery follows the type registry", () => {
  it("serves a type registered after the documents were built, and forgets it once removed", async () => {
    const { types, handler } = setup();
    const before = await call(handler, "/apis");
    const aggBefore = await call(handler, "/apis", aggregatedAccept);
    expect(groupNames(before.json())).not.toContain(widgetGroup);
    expect((await call(handler, `/apis/${widgetGroup}/v1`)).status).toBe(404);

    types.add(widgetType());
    const after = await call(handler, "/apis");
    expect(after.headers["etag"]).not.toBe(before.headers["etag"]);
    // Custom groups rank below every built-in group.
    expect(groupNames(after.json()).at(-1)).toBe(widgetGroup);
    expect((await call(handler, `/apis/${widgetGroup}`)).json()).toMatchObject({ kind: "APIGroup", name: widgetGroup, preferredVersion: { groupVersion: `${widgetGroup}/v1` } });
    const list = (await call(handler, `/apis/${widgetGroup}/v1`)).json();
    expect(list.resources.map((r: any) => r.name)).toEqual(["widgets", "widgets/scale", "widgets/status"]);
    expect(list.resources[0]).toMatchObject({ singularName: "widget", namespaced: true, kind: "Widget", shortNames: ["wd"], categories: ["kapi"] });
    expect(list.resources[1]).toMatchObject({ group: "autoscaling", version: "v1", kind: "Scale" });
    const aggAfter = await call(handler, "/apis", aggregatedAccept);
    expect(aggAfter.headers["etag"]).not.toBe(aggBefore.headers["etag"]);
    const agg = aggAfter.json().items.find((g: any) => g.metadata.name === widgetGroup);
    expect(agg.versions[0].resources[0]).toMatchObject({ resource: "widgets", scope: "Namespaced", singularResource: "widget" });

    types.remove(widgetGroup, "v1", "widgets");
    expect(groupNames((await call(handler, "/apis")).json())).not.toContain(widgetGroup);
    expect(aggregatedGroups((await call(handler, "/apis", aggregatedAccept)).json())).not.toContain(widgetGroup);
    expect((await call(handler, `/apis/${widgetGroup}/v1`)).status).toBe(404);
    expect((await call(handler, `/apis/${widgetGroup}`)).status).toBe(404);
    // Back to the same documents: the ETag is a content hash.
    expect((await call(handler, "/apis")).headers["etag"]).toBe(before.headers["etag"]);
  });

  it("OpenAPI: the new group-version gets a document and the index a hashed URL; others keep theirs", async () => {
    const { types, handler } = setup();
    const index = async () => (await call(handler, "/openapi/v3")).json().paths as Record<string, { serverRelativeURL: string }>;
    const first = await index();
    expect(first[`apis/${widgetGroup}/v1`]).toBeUndefined();

    types.add(widgetType());
    const second = await index();
    expect(second["apis/apps/v1"]).toEqual(first["apis/apps/v1"]);
    const doc = (await call(handler, second[`apis/${widgetGroup}/v1`].serverRelativeURL)).json();
    const get = doc.paths[`/apis/${widgetGroup}/v1/namespaces/{namespace}/widgets/{name}`].get;
    expect(get["x-kubernetes-group-version-kind"]).toEqual({ group: widgetGroup, version: "v1", kind: "Widget" });
    // No protobuf form and no strategic merge patch for such a type.
    expect(Object.keys(get.responses["200"].content)).toEqual(["application/json", "application/yaml"]);
    const patch = doc.paths[`/apis/${widgetGroup}/v1/namespaces/{namespace}/widgets/{name}`].patch;
    expect(Object.keys(patch.requestBody.content)).not.toContain("application/strategic-merge-patch+json");
    expect(doc.components.schemas["dev.kapi.example.v1.Widget"].properties.metadata).toEqual({ $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" });
    expect(doc.components.schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]).toBeDefined();
    expect(doc.components.schemas["io.k8s.api.autoscaling.v1.Scale"]).toBeDefined();

    types.remove(widgetGroup, "v1", "widgets");
    const third = await index();
    expect(third[`apis/${widgetGroup}/v1`]).toBeUndefined();
    expect(third[`apis/${widgetGroup}`]).toBeUndefined();
    expect((await call(handler, `/openapi/v3/apis/${widgetGroup}/v1`)).status).toBe(404);
    expect(third).toEqual(first);
  });

  it("a changed declaration rebuilds its group-version document", async () => {
    const { types, handler } = setup();
    types.add(widgetType());
    const key = `apis/${widgetGroup}/v1`;
    const before = (await call(handler, "/openapi/v3")).json().paths[key].serverRelativeURL;
    types.update({ ...widgetType(), verbs: new Set(["get", "list"]) });
    const after = (await call(handler, "/openapi/v3")).json().paths[key].serverRelativeURL;
    expect(after).not.toBe(before);
    const doc = (await call(handler, after)).json();
    expect(doc.paths[`/apis/${widgetGroup}/v1/namespaces/{namespace}/widgets`].post).toBeUndefined();
  });

  it("stop() leaves the documents as they were", async () => {
    const { types, handler, stop } = setup();
    const before = (await call(handler, "/apis")).headers["etag"];
    stop();
    types.add(widgetType());
    expect((await call(handler, "/apis")).headers["etag"]).toBe(before);
  });
});
