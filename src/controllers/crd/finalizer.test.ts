// The CRD finalizer while custom objects are held by their own finalizers: it waits (no failure,
// no write) and hears their change through the store; a minute into the wait it records upstream's
// poll timeout (InstanceDeletionCheck) and fails, and the retry starts a new wait. Which updates
// of a CRD being deleted it looks at again (upstream updateCustomResourceDefinition).
import { afterEach, describe, expect, it } from "vitest";
import type { KObject } from "../../apimachinery/object.js";
import { Stores } from "../../registry/stores.js";
import { MemoryStorage } from "../../storage/memory/memory-storage.js";
import { builtinTypeRegistry } from "../../types/register.js";
import { admissionChain } from "../../admission/chain.js";
import { findCRDCondition, setCRDCondition } from "../../apiextensions/crd-conditions.js";
import { customResourceCleanupFinalizer } from "../../apiextensions/crd-strategy.js";
import { followChanges } from "../change-follower.js";
import { crdFinalizer, finalizerWantsUpdate, instanceWaitMs } from "./finalizer.js";

const stops: (() => unknown)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});
const turn = () => new Promise<void>((r) => setImmediate(r));

// Configmaps stand in for the custom objects: the finalizer finds a CRD's types by group and plural.
const types = builtinTypeRegistry((f) => f.group === "" && f.resource === "configmaps");
const cmType = types.get("", "v1", "configmaps")!;

function world() {
  const storage = new MemoryStorage();
  const stores = new Stores(storage, admissionChain([]));
  const queued: string[] = [];
  const follower = followChanges(storage, (k) => queued.push(k));
  stops.push(() => storage.close(), () => follower.stop());
  const crd: KObject = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "configmaps.", resourceVersion: "5", deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: [customResourceCleanupFinalizer] },
    spec: { group: "", names: { plural: "configmaps", kind: "ConfigMap" } },
  };
  let writes = 0;
  let clock = 1_000_000;
  const finalizer = crdFinalizer({
    stores,
    types,
    storage,
    follower,
    crdType: cmType, // only used once every object is gone
    updateStatus: async (_name, change) => void (change(crd) && writes++),
    now: () => clock,
  });
  return { storage, stores, queued, crd, finalizer, writes: () => writes, advance: (ms: number) => void (clock += ms) };
}

describe("crd finalizer while objects are held", () => {
  it("waits without failing or writing again, hears the held object change, and records the poll timeout a minute in", async () => {
    const w = world();
    await w.stores.for(cmType).create("a", { metadata: { name: "held", finalizers: ["example.com/hold"] } } as KObject, { dryRun: false });
    await w.stores.for(cmType).create("b", { metadata: { name: "free" } } as KObject, { dryRun: false });

    expect(await w.finalizer.finalize(w.crd)).toEqual({ requeueAfterMs: instanceWaitMs });
    expect(findCRDCondition(w.crd, "Terminating")).toMatchObject({ status: "True", reason: "InstanceDeletionInProgress", message: "CustomResource deletion is in progress" });
    expect(w.writes()).toBe(1);
    const left = await w.storage.range("/registry/configmaps/");
    expect(left.items.map((i) => i.key)).toEqual(["/registry/configmaps/a/held"]);
    // Its own deletes are heard once; the pass that follows finds nothing to do or write.
    await turn();
    expect(w.queued).toEqual(["configmaps."]);
    w.advance(10_000);
    expect(await w.finalizer.finalize(w.crd)).toEqual({ requeueAfterMs: instanceWaitMs - 10_000 });
    expect(w.writes()).toBe(1);
    await turn();
    expect(w.queued).toEqual(["configmaps."]);
    // A change of the held object queues the CRD again.
    await w.stores.for(cmType).update("a", "held", { subresource: "", createIfMissing: false, desired: (cur) => ({ ...cur!, data: { x: "1" } }) }, { dryRun: false });
    await turn();
    expect(w.queued).toEqual(["configmaps.", "configmaps."]);

    // A minute into the wait: upstream's poll gives up, records so and fails (a rate-limited retry).
    w.advance(instanceWaitMs - 10_000);
    await expect(w.finalizer.finalize(w.crd)).rejects.toThrow("could not confirm zero CustomResources remaining: context deadline exceeded");
    expect(findCRDCondition(w.crd, "Terminating")).toMatchObject({ status: "True", reason: "InstanceDeletionCheck", message: "could not confirm zero CustomResources remaining: context deadline exceeded" });
    // The retry is back in progress and waits a new minute.
    expect(await w.finalizer.finalize(w.crd)).toEqual({ requeueAfterMs: instanceWaitMs });
    expect(findCRDCondition(w.crd, "Terminating")?.reason).toBe("InstanceDeletionInProgress");
    expect(w.writes()).toBe(3);
  });
});

describe("finalizerWantsUpdate", () => {
  const base = (): KObject => ({ metadata: { name: "c", resourceVersion: "1", deletionTimestamp: "2026-01-01T00:00:00Z" }, spec: { group: "g" }, status: { conditions: [] } });
  it("looks again on a resync or any change but of the Terminating condition", () => {
    const old = base();
    expect(finalizerWantsUpdate(old, base())).toBe(true);
    const terminatingOnly = { ...base(), metadata: { ...base().metadata, resourceVersion: "2" } };
    setCRDCondition(terminatingOnly, { type: "Terminating", status: "True", reason: "InstanceDeletionInProgress", message: "CustomResource deletion is in progress" });
    expect(finalizerWantsUpdate(old, terminatingOnly)).toBe(false);
    const labelled = { ...terminatingOnly, metadata: { ...terminatingOnly.metadata, labels: { a: "b" } } };
    expect(finalizerWantsUpdate(old, labelled)).toBe(true);
  });
});
