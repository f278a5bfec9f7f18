import { describe, expect, it } from "vitest";
import type { ResourceRequest, ServerParts } from "../handlers/context.js";
import { recordingContext } from "../http/recording-exchange.testkit.js";
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
const parts = { types: { get: (g: string, v: string, r: string) => (g === "" && v === "v1" && r === "configmaps" ? configmaps : undefined) } } as unknown as ServerParts;

describe("router", () => {
  it("offers a non-resource path to each handler in turn", async () => {
    const seen: string[] = [];
    const router = createRouter({
      parts,
      nonResource: [(ex) => (seen.push(`a ${ex.path}`), false), async (ex) => (seen.push(`b ${ex.path}`), true), () => (seen.push("c"), true)],
    });
    const { ctx } = recordingContext({ path: "/version", user });
    await router(ctx);
    expect(seen).toEqual(["a /version", "b /version"]);
  });

  it("answers 404 for a path no one serves", async () => {
    const router = createRouter({ parts, nonResource: [() => false] });
    await expect(router(recordingContext({ path: "/nowhere", user }).ctx)).rejects.toMatchObject({ code: 404, reason: "NotFound", message: "the server could not find the requested resource" });
    await expect(router(recordingContext({ path: "/api/v1/widgets", user }).ctx)).rejects.toMatchObject({ code: 404 });
  });

  it("hands a resource request to a registered special handler with the request's context", async () => {
    const got: ResourceRequest[] = [];
    const special = new Map([["/configmaps/", { create: async (r: ResourceRequest) => void got.push(r) }]]);
    const router = createRouter({ parts, nonResource: [], special });
    const { ctx } = recordingContext({ method: "POST", path: "/api/v1/namespaces/a/configmaps", user });
    ctx.warnings.push("w");
    await router(ctx);
    expect(got).toHaveLength(1);
    expect(got[0]!.ctx).toBe(ctx);
    expect(got[0]!.ex).toBe(ctx.ex);
    expect(got[0]!.user).toBe(user);
    expect(got[0]!.type).toBe(configmaps);
    expect(got[0]!.warnings).toBe(ctx.warnings);
  });

  it("refuses a verb the type does not serve (405) and an unknown subresource (404)", async () => {
    const router = createRouter({ parts, nonResource: [], special: new Map() });
    await expect(router(recordingContext({ method: "DELETE", path: "/api/v1/namespaces/a/configmaps/c", user }).ctx)).rejects.toMatchObject({ code: 405, reason: "MethodNotAllowed" });
    await expect(router(recordingContext({ method: "GET", path: "/api/v1/namespaces/a/configmaps/c/status", user }).ctx)).rejects.toMatchObject({ code: 404 });
  });
});
