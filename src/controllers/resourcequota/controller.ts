// The resource quota controller (upstream: pkg/controller/resourcequota): keeps each quota's
// status.hard equal to spec.hard and status.used equal to what is stored. A quota is synced when
// it is created or its spec.hard differs from status.hard, when an object it counts is deleted or
// changes its usage (replenishment: a pod that finished, a service that changed type), when a
// type is added (a custom resource a quota counts may now be served), and every resync period.
//
// Usage is computed from consistent lists of the store (as the namespace controller lists), not
// from informer views, and written with the quota's resourceVersion as precondition: a charge
// admission made meanwhile makes the write conflict, and the quota is synced again.
import { ApiError } from "../../apimachinery/errors.js";
import { deepClone } from "../../apimachinery/json-value.js";
import { listObjects } from "../../registry/list.js";
import { parseListOptions } from "../../registry/list-options.js";
import type { InformerFactory, ObjectInformer } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { Stores } from "../../registry/stores.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import { listsEqual, mask, resourceListJson, resourceListOf } from "../../quota/resource-list.js";
import { calculateUsage, countedTypes } from "./usage.js";
import { resourceQuotaController } from "../../controller-runtime/controllers-flag.js";
import { runController, type Controller, type ControllerContext } from "../../controller-runtime/controller.js";
import { fixedDelayRateLimiter } from "../../controller-runtime/rate-limiter.js";

export interface ResourceQuotaControllerDeps {
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
  log?: (msg: string) => void;
  /** How often every quota is recomputed (upstream's --resource-quota-sync-period, 5m). */
  resyncMs?: number;
}

const everything = parseListOptions(new URLSearchParams());
const conflictRetryMs = 100;
/** The types whose updates can change usage (others only by being created or deleted). */
const usageOnUpdate = new Set(["pods", "services", "persistentvolumeclaims"]);

type QuotaShape = { spec?: { hard?: unknown }; status?: { hard?: unknown; used?: unknown } };

/** status.hard differs from spec.hard, or status is missing: the quota needs a sync. */
function needsSync(q: KObject): boolean {
  const { spec, status } = q as QuotaShape;
  if (!status?.hard || !status.used) return true;
  return !listsEqual(resourceListOf(spec?.hard), resourceListOf(status.hard));
}

export function startResourceQuotaController({ stores, types, informers, log, resyncMs = 5 * 60_000 }: ResourceQuotaControllerDeps): Controller {
  const rqType = types.get("", "v1", "resourcequotas")!;
  const quotas = informers.forType(rqType);
  const keyOf = (q: KObject) => `${q.metadata.namespace}/${q.metadata.name}`;
  const quotasOf = (ns: string | undefined) => (ns ? quotas.list(ns).map(keyOf) : []);
  const allQuotas = () => quotas.list().map(keyOf);

  // ---- the counted types: followed once some quota counts them
  const followed = new Map<string, ObjectInformer>();
  function follow(ctx: ControllerContext, t: ResourceType, usage: ((o: KObject) => string) | undefined): void {
    const cur = followed.get(t.keyPrefix);
    if (cur && !cur.isStopped) return;
    const informer = usage ? informers.forType(t) : informers.metadataFor(t);
    ctx.watch({
      informer,
      deleted: (o) => quotasOf(o.metadata.namespace),
      updated: (old, o) => usage !== undefined && usage(old) !== usage(o) && quotasOf(o.metadata.namespace),
    });
    followed.set(t.keyPrefix, informer);
  }

  async function sync(key: string, ctx: ControllerContext): Promise<void> {
    const slash = key.indexOf("/");
    const ns = key.slice(0, slash);
    const name = key.slice(slash + 1);
    let quota: KObject;
    try {
      quota = await stores.for(rqType).get(ns, name);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return;
      throw e;
    }
    const shape = quota as QuotaShape;
    const hard = resourceListOf(shape.spec?.hard);
    const counted = countedTypes(types.stored(), [...hard.keys()]);
    for (const c of counted) {
      follow(ctx, c.type, usageOnUpdate.has(c.type.resource) && c.type.group === "" ? (o) => JSON.stringify(resourceListJson(c.evaluator.usage(o, Date.now()))) : undefined);
    }
    const now = Date.now();
    const observed = await calculateUsage(quota, counted, async (t) => (await listObjects(stores.for(t), ns, everything)).items, now);
    // What was used before and is still limited stays unless observed anew (a resource no type counts now).
    const used = mask(resourceListOf(shape.status?.used), hard.keys());
    for (const [k, v] of observed) used.set(k, v);
    const dirty = needsSync(quota) || !listsEqual(used, resourceListOf(shape.status?.used));
    if (!dirty) return;
    const next = deepClone(quota);
    // Empty maps are left out, as Go's omitempty writes them.
    next.status = { ...(hard.size > 0 ? { hard: resourceListJson(hard) } : {}), ...(used.size > 0 ? { used: resourceListJson(used) } : {}) };
    await stores.for(rqType).update(ns, name, { subresource: "status", createIfMissing: false, desired: () => next }, { dryRun: false });
  }

  return runController({
    name: resourceQuotaController,
    watches: [{ informer: quotas, added: keyOf, updated: (_old, q) => needsSync(q) && keyOf(q) }],
    setup(ctx) {
      // A type added may be one some quota counts.
      ctx.onStop(types.subscribe((ev) => {
        if (ev.type !== "removed") for (const key of allQuotas()) ctx.enqueue(key);
      }));
    },
    reconcile: sync,
    resync: { everyMs: resyncMs, keys: allQuotas },
    onError(key, err) {
      if (!(err instanceof ApiError && err.code === 409)) log?.(`resourcequota-controller: syncing ${key}: ${err instanceof Error ? err.message : String(err)}`);
    },
    retry: fixedDelayRateLimiter(conflictRetryMs),
  });
}
