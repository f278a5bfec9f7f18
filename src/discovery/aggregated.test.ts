import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { builtinTypeRegistry } from "../types/register.js";
import { createDiscovery } from "./index.js";
import { negotiateDiscovery } from "./aggregated.js";
import { call } from "./fake-exchange.testkit.js";

const { handler } = createDiscovery(builtinTypeRegistry((f) => f.enabledByDefault));
const v2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const v2beta1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
// What client-go 1.32 sends.
const clientGo = `${v2},${v2beta1},application/json`;

type Item = { metadata: { name?: string }; versions: { version: string; freshness: string; resources: any[] }[] };

describe("aggregated discovery", () => {
  it("answers v2 with the exact negotiated Content-Type, Vary: Accept and a content ETag", async () => {
    const r = await call(handler, "/apis", { accept: clientGo });
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe(v2);
    expect(r.headers["vary"]).toBe("Accept");
    expect(r.headers["cache-control"]).toBe("public");
    const hash = createHash("sha512").update(r.body.trimEnd()).digest("hex").toUpperCase();
    expect(r.headers["etag"]).toBe(`"${hash}"`);
    const body = r.json();
    expect(body.kind).toBe("APIGroupDiscoveryList");
    expect(body.apiVersion).toBe("apidiscovery.k8s.io/v2");
    expect(body.items.map((i: Item) => i.metadata.name)).not.toContain(undefined);
  });

  it("/api holds the core group alone; /apis every other group", async () => {
    const core = (await call(handler, "/api", { accept: clientGo })).json();
    expect(core.items).toHaveLength(1);
    expect(core.items[0].metadata).toEqual({});
    const pods = core.items[0].versions[0].resources.find((r: { resource: string }) => r.resource === "pods");
    expect(pods).toMatchObject({
      resource: "pods",
      responseKind: { group: "", version: "", kind: "Pod" },
      scope: "Namespaced",
      singularResource: "pod",
      verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
      shortNames: ["po"],
      categories: ["all"],
    });
    expect(pods.subresources.find((s: { subresource: string }) => s.subresource === "status")).toEqual({
      subresource: "status",
      responseKind: { group: "", version: "", kind: "Pod" },
      verbs: ["get", "patch", "update"],
    });
    expect(pods.subresources.find((s: { subresource: string }) => s.subresource === "eviction").responseKind).toEqual({ group: "policy", version: "v1", kind: "Eviction" });
    const ns = core.items[0].versions[0].resources.find((r: { resource: string }) => r.resource === "namespaces");
    expect(ns.scope).toBe("Cluster");
    const cs = core.items[0].versions[0].resources.find((r: { resource: string }) => r.resource === "componentstatuses");
    expect(cs.verbs).toEqual(["get", "list"]);
    expect(cs.subresources).toBeUndefined();

    const apis = (await call(handler, "/apis", { accept: clientGo })).json();
    const names = apis.items.map((i: Item) => i.metadata.name);
    expect(names[0]).toBe("apiregistration.k8s.io");
    expect(names).not.toContain(undefined);
    const apps = apis.items.find((i: Item) => i.metadata.name === "apps");
    expect(apps.versions[0].freshness).toBe("Current");
    const deploy = apps.versions[0].resources.find((r: { resource: string }) => r.resource === "deployments");
    expect(deploy.subresources).toEqual([
      { subresource: "scale", responseKind: { group: "autoscaling", version: "v1", kind: "Scale" }, verbs: ["get", "patch", "update"] },
      { subresource: "status", responseKind: { group: "", version: "", kind: "Deployment" }, verbs: ["get", "patch", "update"] },
    ]);
    const autoscaling = apis.items.find((i: Item) => i.metadata.name === "autoscaling");
    expect(autoscaling.versions.map((v: { version: string }) => v.version)).toEqual(["v2", "v1"]);
  });

  it("v2beta1 when asked for it first (older kubectl), with its own Content-Type", async () => {
    const r = await call(handler, "/apis", { accept: `${v2beta1},application/json` });
    expect(r.headers["content-type"]).toBe(v2beta1);
    expect(r.json().apiVersion).toBe("apidiscovery.k8s.io/v2beta1");
  });

  it("v2beta1 can be switched off (upstream 1.34 default): the client falls back to plain JSON", async () => {
    const d = createDiscovery(builtinTypeRegistry((f) => f.enabledByDefault), { v2beta1: false });
    const r = await call(d.handler, "/apis", { accept: `${v2beta1},application/json` });
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.json().kind).toBe("APIGroupList");
  });

  it("plain JSON when the Accept asks for plain JSON (or nothing)", async () => {
    for (const accept of ["application/json", "*/*", ""]) {
      const r = await call(handler, "/apis", accept ? { accept } : {});
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.json().kind).toBe("APIGroupList");
    }
  });

  it("protobuf aggregated is not offered: the JSON alternative is used, else 406", async () => {
    const pb = "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    const r = await call(handler, "/apis", { accept: `${pb},${v2},application/json` });
    expect(r.headers["content-type"]).toBe(v2);
    const only = await call(handler, "/apis", { accept: pb });
    expect(only.status).toBe(406);
    expect(only.json()).toMatchObject({ kind: "Status", code: 406 });
  });

  it("ETag round trip: If-None-Match → 304 without a body", async () => {
    const first = await call(handler, "/api", { accept: clientGo });
    const second = await call(handler, "/api", { accept: clientGo, "if-none-match": String(first.headers["etag"]) });
    expect(second.status).toBe(304);
    expect(second.body).toBe("");
    expect(second.headers["etag"]).toBe(first.headers["etag"]);
    const stale = await call(handler, "/api", { accept: clientGo, "if-none-match": '"0000"' });
    expect(stale.status).toBe(200);
  });

  it("negotiation walks clauses best first and ignores unknown as= targets", () => {
    const both = new Set(["v2", "v2beta1"] as const);
    expect(negotiateDiscovery("application/json;as=Table;v=v1;g=meta.k8s.io, application/json", both)).toEqual({ plain: "json" });
    expect(negotiateDiscovery(`application/json;q=0.5, ${v2}`, both)).toEqual({ aggregated: "v2" });
    expect(negotiateDiscovery(`${v2};profile=nopeer,application/json`, both)).toEqual({ aggregated: "v2" });
    expect(negotiateDiscovery("text/html", both)).toEqual({ none: true });
  });
});
