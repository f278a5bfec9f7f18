// Server-side apply as @kubernetes/client-node sends it (KubernetesObjectApi.patch with
// PatchStrategy.ServerSideApply): run with 1.x and 2.x (vitest.config.ts picks the major), since
// 2.x replaced its HTTP stack and the apply content type travels through it.
import { ApiException, KubeConfig, KubernetesObjectApi, PatchStrategy, type V1ConfigMap } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/client.js";

let s: TestServer;
let api: KubernetesObjectApi;
beforeAll(async () => {
  s = await startTestServer({ storage: "memory" });
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  api = KubernetesObjectApi.makeApiClient(kc);
});
afterAll(async () => {
  await s?.stop();
});

const config = (data: Record<string, string>): V1ConfigMap => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied", namespace: "default" }, data });
const apply = (body: V1ConfigMap, manager: string, force = false, dryRun?: string) => api.patch(body, undefined, dryRun, manager, force, PatchStrategy.ServerSideApply);

describe(`server-side apply through client-node ${process.env.KAPI_TEST_CLIENT_NODE}.x`, () => {
  it("creates, records the manager, refuses another manager's change with 409 naming the field, then forces", async () => {
    const created = await apply(config({ owner: "a" }), "manager-a");
    expect(created.data).toEqual({ owner: "a" });
    expect(created.metadata?.managedFields?.map((m) => [m.manager, m.operation])).toEqual([["manager-a", "Apply"]]);

    const err = await apply(config({ owner: "b" }), "manager-b").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiException);
    const conflict = err as ApiException<unknown>;
    expect(conflict.code).toBe(409);
    const status = typeof conflict.body === "string" ? JSON.parse(conflict.body) : conflict.body;
    expect(status).toMatchObject({ kind: "Status", reason: "Conflict", code: 409 });
    expect(status.message).toContain('conflict with "manager-a": .data.owner');

    const dry = await apply(config({ owner: "b" }), "manager-b", true, "All");
    expect(dry.data).toEqual({ owner: "b" });
    const stored = (await api.read({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied", namespace: "default" } })) as V1ConfigMap;
    expect(stored.data).toEqual({ owner: "a" });

    const forced = await apply(config({ owner: "b" }), "manager-b", true);
    expect(forced.data).toEqual({ owner: "b" });
    expect(forced.metadata?.managedFields?.map((m) => m.manager)).toEqual(["manager-b"]);
  });
});
