// NamespaceLifecycle through a real client (@kubernetes/client-node): a namespace is
// "terminating" only when it has a deletionTimestamp — never because some text in it (a label, an
// annotation) reads "deletionTimestamp". Regression: admission once tested the stored JSON for
// that text, so labelling a namespace phase=deletionTimestamp refused every create in it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiException, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { startTuned, type PartsServer } from "./support/list-watch.js";

let s: PartsServer;
let core: CoreV1Api;
beforeAll(async () => {
  s = await startTuned();
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig);
  core = kc.makeApiClient(CoreV1Api);
});
afterAll(async () => s?.stop());

/** The HTTP status of creating a ConfigMap in `namespace`. */
async function createStatus(namespace: string, name: string): Promise<{ code: number; message?: string }> {
  try {
    const r = await core.createNamespacedConfigMapWithHttpInfo({ namespace, body: { metadata: { name }, data: { k: "v" } } });
    return { code: r.httpStatusCode };
  } catch (e) {
    if (e instanceof ApiException) return { code: e.code, message: JSON.parse(String(e.body)).message };
    throw e;
  }
}

describe("namespace lifecycle admission", () => {
  it("admits creates in a namespace whose labels and annotations mention deletionTimestamp", async () => {
    await core.createNamespace({
      body: {
        metadata: {
          name: "labelled",
          labels: { phase: "deletionTimestamp" },
          annotations: { note: '{"deletionTimestamp":"2020-01-01T00:00:00Z"}' },
        },
      },
    });
    // Right after the create (possibly before the informer has the namespace) and once settled.
    expect(await createStatus("labelled", "first")).toEqual({ code: 201 });
    await s.settle();
    expect(await createStatus("labelled", "second")).toEqual({ code: 201 });
    // A label added later, through an update the informer sees as a change.
    const ns = await core.readNamespace({ name: "labelled" });
    await core.replaceNamespace({ name: "labelled", body: { ...ns, metadata: { ...ns.metadata, labels: { deletionTimestamp: "deletionTimestamp" } } } });
    await s.settle(); // the admission plugin's informer holds the update
    expect(await createStatus("labelled", "third")).toEqual({ code: 201 });
  });

  it("refuses creates in a namespace that really is terminating (control)", async () => {
    await core.createNamespace({ body: { metadata: { name: "held" } } });
    // Content with a finalizer keeps the namespace terminating for as long as the test needs.
    await core.createNamespacedConfigMap({ namespace: "held", body: { metadata: { name: "pinned", finalizers: ["example.com/hold"] } } });
    await core.deleteNamespace({ name: "held" });
    await s.settle(); // the admission plugin's informer holds the deletion
    const refused = await createStatus("held", "late");
    expect(refused.code).toBe(403);
    expect(refused.message).toContain("because it is being terminated");
    // Release the finalizer: the namespace controller then finishes the deletion.
    const pinned = await core.readNamespacedConfigMap({ name: "pinned", namespace: "held" });
    await core.replaceNamespacedConfigMap({ name: "pinned", namespace: "held", body: { ...pinned, metadata: { ...pinned.metadata, finalizers: [] } } });
    // The namespace controller hears of the change of the content it left: settled, the namespace is gone.
    await s.settle();
    const status = await core.readNamespaceWithHttpInfo({ name: "held" }).then((r) => r.httpStatusCode, (e: ApiException<unknown>) => e.code);
    expect(status).toBe(404);
    expect(await createStatus("held", "after")).toMatchObject({ code: 404 });
  });
});
