// The CRD finalizer (upstream apiextensions-apiserver pkg/controller/finalizer/crd_finalizer.go):
// a CRD being deleted with the customresourcecleanup finalizer is marked Terminating, every custom
// object is deleted (all namespaces, every stored version's type), and once none remain the
// finalizer is removed so that the CRD goes.
//
// While objects remain (held by their own finalizers) upstream's pass polls for up to a minute
// with Terminating=True/InstanceDeletionInProgress, then writes InstanceDeletionCheck and fails, so
// the rate-limited queue runs the pass again. kapi does not block its queue for that minute: the
// pass keeps InstanceDeletionInProgress, hears the first change of the custom objects through the
// store (change-follower.ts) and looks again then, and a minute after the wait began writes the
// same InstanceDeletionCheck failure as upstream's poll would.
import { removeFinalizer } from "../remove-finalizer.js";
import { deepClone, deepEqual } from "../../apimachinery/json-value.js";
import { listObjects } from "../../registry/list.js";
import { parseListOptions } from "../../registry/list-options.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { Stores } from "../../registry/stores.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import type { Storage } from "../../storage/interface.js";
import type { ReconcileResult } from "../../controller-runtime/controller.js";
import { customResourceCleanupFinalizer } from "../../apiextensions/crd-strategy.js";
import { removeCRDCondition, setCRDCondition, type CRDCondition } from "../../apiextensions/crd-conditions.js";
import type { ChangeFollower } from "../change-follower.js";

type Obj = Record<string, any>;
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const everything = parseListOptions(new URLSearchParams());

/** Upstream's wait.PollUntilContextTimeout(…, 5*time.Second, 1*time.Minute, …) for the last objects. */
export const instanceWaitMs = 60_000;

export interface CRDFinalizerDeps {
  stores: Stores;
  types: TypeRegistry;
  storage: Storage;
  /** Hears the custom objects a pass left behind. */
  follower: ChangeFollower;
  /** Writes the CRD's status through /status. */
  updateStatus(name: string, change: (crd: KObject) => boolean): Promise<unknown>;
  crdType: ResourceType;
  now?: () => number;
}

export interface CRDFinalizer {
  finalize(crd: KObject): Promise<ReconcileResult | void>;
  /** The CRD is gone or not being deleted: nothing to wait for. */
  forget(name: string): void;
}

const terminating = (reason: string, message: string, status: "True" | "False" = "True"): CRDCondition => ({ type: "Terminating", status, reason, message });

/** Whether the finalizer must look at a CRD being deleted on this update (upstream updateCustomResourceDefinition). */
export function finalizerWantsUpdate(oldCRD: KObject, newCRD: KObject): boolean {
  // A resync (same object) is always looked at.
  if (oldCRD.metadata.resourceVersion === newCRD.metadata.resourceVersion) return true;
  // A change of the Terminating condition alone is most likely the finalizer's own write:
  // queueing on it would loop; its failures are retried by the queue itself.
  const strip = (o: KObject) => {
    const c = deepClone(o);
    delete c.metadata.resourceVersion;
    removeCRDCondition(c, "Terminating");
    return c;
  };
  return !deepEqual(strip(oldCRD), strip(newCRD));
}

export function crdFinalizer({ stores, types, storage, follower, updateStatus, crdType, now: clock = Date.now }: CRDFinalizerDeps): CRDFinalizer {
  /** When each CRD began waiting for objects held by their finalizers. */
  const waitingSince = new Map<string, number>();

  /** The resource types of a CRD's custom objects (one per served version; they share storage). */
  function typesOf(crd: KObject): ResourceType[] {
    const spec = (crd.spec ?? {}) as Obj;
    const group = str(spec.group);
    const plural = str(spec.names?.plural);
    const seen = new Set<string>();
    const out: ResourceType[] = [];
    for (const t of types.stored()) {
      if (t.group !== group || t.resource !== plural || seen.has(t.keyPrefix)) continue;
      seen.add(t.keyPrefix);
      out.push(t);
    }
    return out;
  }

  /** Deletes every custom object: the condition to record and, on failure, the error to retry on. */
  async function deleteInstances(all: ResourceType[]): Promise<{ cond?: CRDCondition; remaining: boolean }> {
    let remaining = false;
    for (const t of all) {
      let items: KObject[];
      try {
        items = (await listObjects(stores.for(t), "", everything)).items;
      } catch (e) {
        return { cond: terminating("InstanceDeletionFailed", `could not list instances: ${(e as Error).message}`), remaining: true };
      }
      const errors: string[] = [];
      for (const o of items) {
        if (o.metadata.deletionTimestamp) continue;
        await stores.for(t).delete(o.metadata.namespace ?? "", o.metadata.name!, { dryRun: false }).catch((e: Error & { reason?: string }) => {
          if (e.reason !== "NotFound") errors.push(e.message);
        });
      }
      if (errors.length > 0) {
        return { cond: terminating("InstanceDeletionFailed", `could not issue all deletes: ${errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`}`), remaining: true };
      }
      if ((await listObjects(stores.for(t), "", everything)).items.length > 0) remaining = true;
    }
    return { remaining };
  }

  async function finalize(crd: KObject): Promise<ReconcileResult | void> {
    const name = crd.metadata.name!;
    follower.release(name);
    if (!(crd.metadata.finalizers ?? []).includes(customResourceCleanupFinalizer)) return forget(name);
    // Read before the pass: a change of the custom objects made while it lists is heard too.
    const before = await storage.currentRevision();
    // A no-op once the condition reads so (the store writes nothing then).
    await updateStatus(name, (c) => setCRDCondition(c, terminating("InstanceDeletionInProgress", "CustomResource deletion is in progress")));
    const all = typesOf(crd);
    const { cond, remaining } = await deleteInstances(all);
    if (cond) {
      forget(name);
      await updateStatus(name, (c) => setCRDCondition(c, cond));
      throw new Error(cond.message);
    }
    if (remaining) {
      const now = clock();
      const since = waitingSince.get(name) ?? now;
      if (now - since >= instanceWaitMs) {
        // Upstream's poll timed out: it records so and fails, and the retry starts a new wait.
        forget(name);
        const timedOut = terminating("InstanceDeletionCheck", "could not confirm zero CustomResources remaining: context deadline exceeded");
        await updateStatus(name, (c) => setCRDCondition(c, timedOut));
        throw new Error(timedOut.message);
      }
      waitingSince.set(name, since);
      const prefixes = all.map((t) => t.keyPrefix);
      follower.hold(name, before, prefixes.length === 1 ? prefixes[0]! : "/registry/", (key) => prefixes.some((p) => key.startsWith(p)));
      return { requeueAfterMs: since + instanceWaitMs - now };
    }
    forget(name);
    await updateStatus(name, (c) => setCRDCondition(c, terminating("InstanceDeletionCompleted", "removed all instances", "False")));
    // Removing the finalizer (main resource): with none left the store removes the CRD.
    await removeFinalizer(stores.for(crdType), "", name, customResourceCleanupFinalizer);
  }

  function forget(name: string): void {
    waitingSince.delete(name);
    follower.release(name);
  }

  return { finalize, forget };
}
