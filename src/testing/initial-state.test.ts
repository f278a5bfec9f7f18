import { describe, expect, it } from "vitest";
import { defaultOptions } from "../server/options.js";
import { initialStateCopy, initialStateKey, keepInitialState } from "./initial-state.js";
import { snapshotFormatVersion, snapshotKind, type Snapshot } from "./snapshot-format.js";

const options = { ...defaultOptions(), storageBackend: "memory" as const, dataDir: "", writeKubeconfig: false };
const inputs = { options, admissionPlugins: false, content: false };

const state: Snapshot = {
  kind: snapshotKind,
  formatVersion: snapshotFormatVersion,
  kapiVersion: "test",
  revision: 3,
  objects: [
    { key: "/registry/namespaces/default", object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "default", uid: "11111111-1111-4111-8111-111111111111", creationTimestamp: "2020-01-01T00:00:00Z" } } },
    {
      key: "/registry/configmaps/default/owned",
      object: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name: "owned",
          namespace: "default",
          uid: "22222222-2222-4222-8222-222222222222",
          creationTimestamp: "2020-01-01T00:00:00Z",
          ownerReferences: [{ apiVersion: "v1", kind: "Namespace", name: "default", uid: "11111111-1111-4111-8111-111111111111" }],
          managedFields: [{ manager: "m", operation: "Update", time: "2020-01-01T00:00:00Z" }],
        },
        data: { note: "not a uid: 33333333-3333-4333-8333-333333333333" },
      },
    },
  ],
};

describe("initial states", () => {
  it("are kept only for configurations nothing but the options decides", () => {
    expect(initialStateKey(inputs)).toBeTypeOf("string");
    expect(initialStateKey({ ...inputs, options: { ...options, featureGates: "A=true" } })).not.toBe(initialStateKey(inputs));
    expect(initialStateKey({ ...inputs, admissionPlugins: true })).toBeUndefined();
    expect(initialStateKey({ ...inputs, content: true })).toBeUndefined();
    expect(initialStateKey({ ...inputs, options: { ...options, storageBackend: "sqlite" } })).toBeUndefined();
    expect(initialStateKey({ ...inputs, options: { ...options, dataDir: "/tmp/x" } })).toBeUndefined();
    expect(initialStateKey({ ...inputs, options: { ...options, log: () => undefined } })).toBe(initialStateKey(inputs));
  });

  it("copies a kept state with uids of its own (references follow), creation and managed-fields times now", () => {
    const key = initialStateKey({ ...inputs, options: { ...options, runtimeConfig: "copy-test" } })!;
    expect(initialStateCopy(key)).toBeUndefined();
    keepInitialState(key, state);
    const before = Date.now() - 1000;
    const copy = initialStateCopy(key)!;
    expect(copy.map((kv) => kv.key)).toEqual(["/registry/namespaces/default", "/registry/configmaps/default/owned"]);
    const [ns, cm] = copy.map((kv) => JSON.parse(kv.value));
    expect(ns.metadata.uid).not.toBe("11111111-1111-4111-8111-111111111111");
    expect(cm.metadata.uid).not.toBe("22222222-2222-4222-8222-222222222222");
    expect(cm.metadata.ownerReferences[0].uid).toBe(ns.metadata.uid);
    expect(cm.data.note).toBe("not a uid: 33333333-3333-4333-8333-333333333333");
    expect(Date.parse(ns.metadata.creationTimestamp)).toBeGreaterThanOrEqual(before);
    expect(cm.metadata.managedFields[0]).toEqual({ manager: "m", operation: "Update", time: cm.metadata.creationTimestamp });
    // Field order is kept (a restore compares stored bytes).
    expect(Object.keys(cm)).toEqual(["apiVersion", "kind", "metadata", "data"]);
    // Each copy is new.
    expect(JSON.parse(initialStateCopy(key)![0].value).metadata.uid).not.toBe(ns.metadata.uid);
  });
});
