import { describe, expect, it } from "vitest";
import type { ResourceRequest, ServerParts } from "../handlers/context.js";
import { recordingContext } from "../http/recording-exchange.testkit.js";
import type { RestStorage } from "../handlers/rest/capabilities.js";
import { RestStorageTable } from "../handlers/rest/storage-table.js";
import { noAdmission } from "../admission/chain.js";
import type { ResourceType } from "../registry/resource-type.js";
import { Stores } from "../registry/stores.js";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { createRouter } from "./router.js";

const user = { name: "jane", groups: [] };

// Just enough of a registered type for routing.
const configmaps = {
  group: "",
  resource: "configmaps",
  gr: { group: "", resource: "configmaps" },
  namespaced: true,
  virtual: false,
  verbs: new Set(["get", "list", "watch", "create"]),
  subresources: [],
};
const stores = new Stores(new MemoryStorage(), noAdmission);
const parts = { stores, types: { get: (g: string, v: string, r: string) => (g === "" && v === "v1" && r === "configmaps" ? configmaps : undefined) } } as unknown as ServerParts;
/** A resource storage that serves nothing: routing alone is under test. */
const noStorages = () => new RestStorageTable({});

describe("router", () => {
  it("offers a non-resource path to each handler in turn", async () => {
    const seen: string[] = [];
    const router = createRouter({
      parts,
      storages: noStorages(),
      nonResource: [(ex) => (seen.push(`a ${ex.path}`), false), async (ex) => (seen.push(`b ${ex.path}`), true), () => (seen.push("c"), true)],
    });
    const { ctx } = recordingContext({ path: "/version", user });
    await router(ctx);
    expect(seen).toEqual(["a /version", "b /version"]);
  });

  it("answers 404 for a path no one serves", async () => {
    const router = createRouter({ parts, nonResource: [() => false], storages: noStorages() });
    await expect(router(recordingContext({ path: "/nowhere", user }).ctx)).rejects.toMatchObject({ code: 404, reason: "NotFound", message: "the server could not find the requested resource" });
    await expect(router(recordingContext({ path: "/api/v1/widgets", user }).ctx)).rejects.toMatchObject({ code: 404 });
  });

  it("hands a resource request to the storage registered for its resource, with the request's context", async () => {
    const got: ResourceRequest[] = [];
    const storages = noStorages().register("", "configmaps", "", { create: async (r: ResourceRequest) => void got.push(r) });
    const router = createRouter({ parts, nonResource: [], storages });
    const { ctx } = recordingContext({ method: "POST", path: "/api/v1/namespaces/a/configmaps", user });
    ctx.warnings.push("w");
    await router(ctx);
    expect(got).toHaveLength(1);
    expect(got[0]!.ctx).toBe(ctx);
    expect(got[0]!.ex).toBe(ctx.ex);
    expect(got[0]!.user).toBe(user);
    expect(got[0]!.type).toBe(configmaps);
    expect(got[0]!.store).toBe(stores.for(configmaps as unknown as ResourceType));
    expect(got[0]!.warnings).toBe(ctx.warnings);
  });

  it("refuses a verb the type does not serve (405) and an unknown subresource (404)", async () => {
    const router = createRouter({ parts, nonResource: [], storages: noStorages() });
    await expect(router(recordingContext({ method: "DELETE", path: "/api/v1/namespaces/a/configmaps/c", user }).ctx)).rejects.toMatchObject({ code: 405, reason: "MethodNotAllowed" });
    await expect(router(recordingContext({ method: "GET", path: "/api/v1/namespaces/a/configmaps/c/status", user }).ctx)).rejects.toMatchObject({ code: 404 });
  });

  describe("dispatch by capability", () => {
    const sub = (name: string, verbs: string[]) => ({ name, kind: "X", verbs });
    const declared = (resource: string, subresources: { name: string; kind: string; verbs: string[] }[]) => ({
      ...configmaps,
      resource,
      gr: { group: "", resource },
      verbs: new Set(["get", "create"]),
      subresources,
    });
    // Both types declare a binding, a status and an exec subresource; only pods' binding and exec have storages.
    const pods = declared("pods", [sub("binding", ["create"]), sub("exec", ["create", "get"]), sub("status", ["get", "update"])]);
    const widgets = declared("widgets", [sub("binding", ["create"]), sub("exec", ["create", "get"]), sub("status", ["get", "update"])]);
    const typedParts = { stores, types: { get: (_g: string, _v: string, r: string) => (r === "pods" ? pods : r === "widgets" ? widgets : undefined) } } as unknown as ServerParts;
    const served: string[] = [];
    const record = (what: string) => async (r: ResourceRequest) => void served.push(`${what} ${r.type.resource} ${r.info.verb}`);
    const binding: RestStorage = { create: record("binding"), unservedVerb: "NotFound" };
    const exec: RestStorage = { connect: record("exec"), connectMethods: ["GET", "POST"], unservedVerb: "RouteMethod" };
    const status: RestStorage = { get: record("status"), update: record("status") };
    const storages = new RestStorageTable({ get: record("object") })
      .register("", "pods", "binding", binding)
      .register("", "pods", "exec", exec)
      .registerForAnyType("status", status);
    const router = createRouter({ parts: typedParts, nonResource: [], storages });
    const request = (method: string, path: string) => router(recordingContext({ method, path, user }).ctx);

    it("gives a type declaring a subresource nobody implements for it no handler (404, as an unknown path)", async () => {
      await expect(request("POST", "/api/v1/namespaces/a/widgets/w/binding")).rejects.toMatchObject({ code: 404, reason: "NotFound", message: "the server could not find the requested resource" });
      await expect(request("GET", "/api/v1/namespaces/a/widgets/w/exec")).rejects.toMatchObject({ code: 404, reason: "NotFound" });
      served.length = 0;
      await request("POST", "/api/v1/namespaces/a/pods/p/binding");
      expect(served).toEqual(["binding pods create"]);
    });

    it("serves a subresource every type gets from what each type declares", async () => {
      served.length = 0;
      await request("GET", "/api/v1/namespaces/a/widgets/w/status");
      await request("PUT", "/api/v1/namespaces/a/pods/p/status");
      await request("GET", "/api/v1/namespaces/a/pods/p");
      expect(served).toEqual(["status widgets get", "status pods update", "object pods get"]);
    });

    it("connects for the verbs a connecter names", async () => {
      served.length = 0;
      await request("GET", "/api/v1/namespaces/a/pods/p/exec");
      await request("POST", "/api/v1/namespaces/a/pods/p/exec");
      expect(served).toEqual(["exec pods get", "exec pods create"]);
    });

    it("answers a verb a storage does not serve as the storage says: 404 for one that acts, 405 for a view of the object", async () => {
      await expect(request("PUT", "/api/v1/namespaces/a/pods/p/binding")).rejects.toMatchObject({ code: 404, reason: "NotFound" });
      await expect(request("DELETE", "/api/v1/namespaces/a/pods/p/status")).rejects.toMatchObject({ code: 405, reason: "MethodNotAllowed" });
      // Declared (create) but not implemented by the resource's storage: 405 too.
      await expect(request("POST", "/api/v1/namespaces/a/pods")).rejects.toMatchObject({ code: 405, reason: "MethodNotAllowed" });
    });
  });
});
