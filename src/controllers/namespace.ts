// Namespace lifecycle (upstream: the namespace controller): a namespace being deleted has all
// its content deleted, then its `kubernetes` finalizer removed, then it is gone. Each pass records
// what it found in the namespace's deletion conditions (namespace-conditions.ts), so a deletion
// held up by finalizers or failing deletes says so in `kubectl describe namespace`.
//
// It hears of namespaces with a deletionTimestamp from the namespace (metadata) informer, of any
// change to the content a pass left behind (objects with finalizers, pods in graceful deletion)
// from the store (namespace-content.ts), and re-examines every terminating namespace
// periodically. A pass that fails is queued again with backoff. Content is
// enumerated with the store's consistent list — not informer views, which may lag behind a create
// admitted just before the namespace began terminating, and not the watch caches, which would be
// loaded in full for every namespaced type — for every namespaced type served at that moment, so
// types added later (custom resources) are included.
import { deepClone } from "../apimachinery/json-value.js";
import { ApiError } from "../apimachinery/errors.js";
import { listObjects } from "../registry/list.js";
import { parseListOptions } from "../registry/list-options.js";
import { nowTimestamp } from "../apimachinery/object.js";
import type { InformerFactory } from "../registry/informer-factory.js";
import type { KObject } from "../apimachinery/object.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { Stores } from "../registry/stores.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import { controllerManagerFieldManager } from "./field-manager.js";
import { deletionConditions, emptyReport, mergeConditions, type ContentReport, type NamespaceCondition } from "./namespace-conditions.js";
import { runController, type Controller } from "../controller-runtime/controller.js";
import { bucketRateLimiter, itemExponentialRateLimiter, maxOfRateLimiters, type RateLimiter } from "../controller-runtime/rate-limiter.js";
import type { Storage } from "../storage/interface.js";
import { followContent, type ContentFollower } from "./namespace-content.js";

export interface NamespaceControllerDeps {
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
  /** Watched for changes of the content a pass could not remove yet. */
  storage: Storage;
}

const resyncMs = 2000;
const kubernetesFinalizer = "kubernetes";

const isTerminating = (ns: KObject | undefined) => Boolean(ns?.metadata.deletionTimestamp);
const specFinalizers = (ns: KObject): string[] => (ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];
/** A plain list: everything, consistent (resourceVersion unset). */
const everything = parseListOptions(new URLSearchParams());

export function startNamespaceController({ stores, types, informers, storage }: NamespaceControllerDeps): Controller {
  const nsType = types.get("", "v1", "namespaces")!;
  const namespaces = informers.metadataFor(nsType);
  let content: ContentFollower | undefined;

  const listContent = async (t: ResourceType, ns: string): Promise<KObject[]> =>
    (await listObjects(stores.for(t), ns, everything)).items;

  /** Deletes what is in the namespace; reports what remains after that, and why. */
  async function deleteContent(ns: string): Promise<ContentReport> {
    const report = emptyReport();
    for (const t of types.stored().filter((t) => t.namespaced)) {
      try {
        await deleteContentOfType(t, ns, report);
      } catch (e) {
        report.errors.push(e instanceof Error ? e.message : String(e));
      }
    }
    return report;
  }

  async function deleteContentOfType(t: ResourceType, ns: string, report: ContentReport): Promise<void> {
    for (const obj of await listContent(t, ns)) {
      if (obj.metadata.deletionTimestamp) continue; // already going
      await stores.for(t).delete(ns, obj.metadata.name!, { dryRun: false, propagationPolicy: "Background" }).catch((e) => {
        if (!(e instanceof ApiError && (e.code === 404 || e.code === 405))) throw e; // gone already, or not deletable
      });
    }
    // Listed again, as upstream verifies: what remains keeps the namespace until the next pass.
    const left = await listContent(t, ns);
    if (left.length === 0) return;
    report.remainingByResource.set(`${t.resource}.${t.group}`, left.length);
    let held = false;
    for (const obj of left) {
      for (const f of obj.metadata.finalizers ?? []) {
        report.remainingByFinalizer.set(f, (report.remainingByFinalizer.get(f) ?? 0) + 1);
        held = true;
      }
    }
    // Objects with neither a finalizer nor a grace period running should be gone by now.
    const terminating = left.some((o) => o.metadata.deletionTimestamp && (o.metadata.deletionGracePeriodSeconds ?? 0) > 0);
    if (!held && !terminating) report.errors.push(`unexpected items still remain in namespace: ${ns} for gvr: ${t.group}/${t.version}, Resource=${t.resource}`);
  }

  /** Writes the conditions a pass calls for through /status, when they differ from the stored ones. */
  async function recordConditions(live: KObject, report: ContentReport): Promise<void> {
    const desired = deletionConditions(report);
    const merged = (ns: KObject) => mergeConditions((ns.status as { conditions?: NamespaceCondition[] } | undefined)?.conditions, desired, nowTimestamp());
    if (!merged(live)) return;
    await stores.for(nsType).update("", live.metadata.name!, { subresource: "status", createIfMissing: false, desired: (stored) => {
      if (!stored || stored.metadata.uid !== live.metadata.uid) throw new ApiError(404, "NotFound", "gone");
      const conditions = merged(stored);
      if (!conditions) return stored;
      const cur = deepClone(stored);
      cur.status = { ...(cur.status ?? {}), conditions };
      return cur;
    } }, { dryRun: false, fieldManager: controllerManagerFieldManager });
  }

  async function finalize(name: string): Promise<void> {
    content?.release(name);
    if (!isTerminating(namespaces.get("", name))) return;
    const live = await stores.for(nsType).get("", name).catch(unlessNotFound);
    // Finalized already (spec.finalizers empty): only metadata finalizers can hold it now.
    if (!live?.metadata.deletionTimestamp || specFinalizers(live).length === 0) return;
    // Read before the pass: a change made while it lists is heard too (the pass's own deletes
    // cost one more pass, which finds nothing new to write).
    const before = await storage.currentRevision();
    const report = await deleteContent(name);
    // A failed condition write (the namespace changed or went) is left to the next pass, as
    // upstream only logs it.
    await recordConditions(live, report).catch(() => undefined);
    if (report.remainingByResource.size > 0) content?.hold(name, before);
    // A failed pass is retried with backoff (upstream: AddRateLimited); content that remains
    // waits for the content follower instead (upstream: a requeue after an estimate).
    if (report.errors.length > 0) throw new Error(`deletion of namespace ${name} failed: ${report.errors.join("; ")}`);
    if (report.remainingByResource.size > 0) return;
    await stores.for(nsType).update("", name, { subresource: "finalize", createIfMissing: false, desired: (stored) => {
      if (!stored) throw new ApiError(404, "NotFound", "gone");
      const cur = deepClone(stored);
      cur.spec = { ...(cur.spec ?? {}), finalizers: specFinalizers(cur).filter((f) => f !== kubernetesFinalizer) };
      return cur;
    } }, { dryRun: false, fieldManager: controllerManagerFieldManager }).catch(unlessNotFound);
    // With no finalizers left at all the object can go.
    const cur = await stores.for(nsType).get("", name).catch(unlessNotFound);
    if (cur && specFinalizers(cur).length === 0 && (cur.metadata.finalizers ?? []).length === 0) {
      await stores.for(nsType).delete("", name, { dryRun: false }).catch(unlessNotFound);
    }
  }

  const terminating = (ns: KObject) => isTerminating(ns) && ns.metadata.name!;
  return runController({
    name: "namespace-controller",
    watches: [{ informer: namespaces, added: terminating, updated: (_old, ns) => terminating(ns) }],
    setup(ctx) {
      const follower = followContent(storage, types, (ns) => ctx.enqueue(ns));
      content = follower;
      ctx.onStop(() => follower.stop());
    },
    reconcile: finalize,
    resync: { everyMs: resyncMs, keys: () => namespaces.list().filter(isTerminating).map((ns) => ns.metadata.name!) },
    // One namespace at a time, in the order they were queued. A failed pass (a delete refused or
    // in conflict, storage closing) is queued again after a backoff.
    retry: namespaceRateLimiter(),
  });
}

/**
 * Upstream's nsControllerRateLimiter: per namespace 5 ms doubling up to 60 s (a namespace is
 * looked at again at least every minute), and 10 retries a second overall with bursts of 100.
 */
function namespaceRateLimiter(): RateLimiter {
  return maxOfRateLimiters(itemExponentialRateLimiter(5, 60_000), bucketRateLimiter(10, 100));
}

/** Gone already (another pass or client finished the job): nothing left to do. */
function unlessNotFound(e: unknown): undefined {
  if (e instanceof ApiError && e.code === 404) return undefined;
  throw e;
}
