// The API Priority and Fairness configuration consumer (upstream: the configController's worker,
// field manager api-priority-and-fairness-config-consumer-v1): whenever a
// PriorityLevelConfiguration's spec, or a FlowSchema's spec or status, changes, every object is
// digested again into the dispatcher, and each FlowSchema's Dangling condition is written (server
// side apply of status, forced) when it is not what it should be — at most six times a minute per
// FlowSchema, so that two servers that disagree do not fight without end. Every 10 s the levels'
// seats are lent and borrowed anew.
import { ApiError } from "../../apimachinery/errors.js";
import { deepEqual } from "../../apimachinery/json-value.js";
import type { KObject } from "../../apimachinery/object.js";
import { applyPatch } from "../../apply/index.js";
import { runController, type Controller } from "../../controller-runtime/controller.js";
import { ownershipOptions } from "../../registry/field-ownership.js";
import type { FlowSchema, PriorityLevelConfiguration } from "../../types/flowcontrol-bootstrap.js";
import { borrowingAdjustmentMs, type Dispatcher, type FlowSchemaStatusUpdate } from "./dispatcher.js";
import type { EnsurerParts } from "./ensurer.js";

export const consumerFieldManager = "api-priority-and-fairness-config-consumer-v1";
export const configControllerName = "priority-and-fairness-config-consumer";
const maxUpdatesPerMinute = 5;

export interface ConfigControllerParts extends EnsurerParts {
  dispatcher: Dispatcher;
  /** Milliseconds since the epoch (tests move it). */
  now?: () => number;
}

export function startConfigController(p: ConfigControllerParts): Controller {
  const now = p.now ?? Date.now;
  const plInformer = p.informers.forType(p.priorityLevels);
  const fsInformer = p.informers.forType(p.flowSchemas);
  const key = "config";
  /** Recent status writes, newest first: when, and which FlowSchemas. */
  let recentUpdates: { at: number; names: Set<string> }[] = [];
  const shouldDelay = (name: string) => {
    const minuteAgo = now() - 60_000;
    let n = 0;
    for (const [i, u] of recentUpdates.entries()) {
      if (u.at < minuteAgo) {
        recentUpdates = recentUpdates.slice(0, i);
        return false;
      }
      if (u.names.has(name) && ++n > maxUpdatesPerMinute) return true;
    }
    return false;
  };
  const specOf = (o: KObject) => (o as unknown as { spec?: unknown }).spec;
  const statusOf = (o: KObject) => (o as unknown as { status?: unknown }).status;
  return runController({
    name: configControllerName,
    watches: [
      { informer: plInformer, added: () => key, updated: (a, b) => !deepEqual(specOf(a), specOf(b)) && key, deleted: () => key },
      { informer: fsInformer, added: () => key, updated: (a, b) => (!deepEqual(specOf(a), specOf(b)) || !deepEqual(statusOf(a), statusOf(b))) && key, deleted: () => key },
    ],
    setup(ctx) {
      ctx.holdUntil(Promise.all([plInformer.synced, fsInformer.synced]));
      ctx.enqueue(key);
      p.dispatcher.onQuiescedIdle = () => ctx.enqueue(key);
      ctx.onStop(() => (p.dispatcher.onQuiescedIdle = undefined));
      const timer = setInterval(() => p.dispatcher.updateBorrowing(), borrowingAdjustmentMs);
      timer.unref();
      ctx.onStop(() => clearInterval(timer));
    },
    onError: (_k, err) => p.log(`${configControllerName}: ${err instanceof Error ? err.message : String(err)}`),
    async reconcile() {
      const updates = p.dispatcher.digest(plInformer.list() as unknown as PriorityLevelConfiguration[], fsInformer.list() as unknown as FlowSchema[]);
      const written = new Set<string>();
      let delayMs = 0;
      const errors: string[] = [];
      for (const u of updates) {
        if (shouldDelay(u.name)) {
          delayMs ||= (30 + Math.floor(Math.random() * 45)) * 1000;
          continue;
        }
        written.add(u.name);
        await writeCondition(p, u).catch((e) => {
          if (!(e instanceof ApiError && e.code === 404)) errors.push(`failed to set a status.condition for FlowSchema ${u.name}: ${(e as Error).message}`);
        });
      }
      recentUpdates.unshift({ at: now(), names: written });
      if (errors.length) throw new Error(errors.join("; "));
      return delayMs ? { requeueAfterMs: delayMs } : undefined;
    },
  });
}

/** Server-side apply of the one condition to the FlowSchema's status, forced. */
function writeCondition(p: ConfigControllerParts, u: FlowSchemaStatusUpdate): Promise<unknown> {
  const t = p.flowSchemas;
  const config = { apiVersion: t.apiVersion, kind: t.kind, metadata: { name: u.name }, status: { conditions: [u.condition] } };
  return p.stores.for(t).update(
    "",
    u.name,
    {
      subresource: "status",
      createIfMissing: false,
      desired(live) {
        if (!live) throw new ApiError(404, "NotFound", `flowschemas.flowcontrol.apiserver.k8s.io "${u.name}" not found`);
        return applyPatch(live, config, consumerFieldManager, undefined, { ...ownershipOptions(t, "status"), force: true }).object as KObject;
      },
    },
    { dryRun: false, fieldManager: consumerFieldManager, ownershipRecorded: true },
  );
}
