// kube-system/kube-apiserver-legacy-service-account-token-tracking (upstream
// pkg/controlplane/controller/legacytokentracking): the API server records, in `data.since`, the
// day it began stamping legacy tokens with their last use. A clean-up controller reads it: a token
// with no last-used label is only known to be unused if tracking has been on for long enough.
// The server keeps it present (re-created at most once per half hour, so servers of one cluster
// that disagree do not fight over it) and keeps `since` a valid date.
import { runController, type Controller, type ReconcileResult } from "../../controller-runtime/controller.js";
import { fixedDelayRateLimiter } from "../../controller-runtime/rate-limiter.js";
import type { InformerFactory } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import type { Stores } from "../../registry/stores.js";
import type { TypeRegistry } from "../../registry/type-registry.js";

export const trackingConfigMapName = "kube-apiserver-legacy-service-account-token-tracking";
export const trackingConfigMapNamespace = "kube-system";
export const trackingSinceKey = "since";
const creationIntervalMs = 30 * 60 * 1000;
const retryMs = 1000;

/** A YYYY-MM-DD calendar date (what Go's time.Parse accepts for that layout, leap days included). */
export function isTrackingDate(v: unknown): boolean {
  if (typeof v !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

export interface TrackingConfigMapDeps {
  stores: Stores;
  types: TypeRegistry;
  informers: InformerFactory;
  log?: (m: string) => void;
  /** ms since the epoch (tests). */
  now?: () => number;
}

const isReason = (e: unknown, ...reasons: string[]) => reasons.includes((e as { reason?: string })?.reason ?? "");

export function startTrackingConfigMapController({ stores, types, informers, log = () => {}, now = Date.now }: TrackingConfigMapDeps): Controller | undefined {
  const t = types.get("", "v1", "configmaps");
  if (!t) return undefined;
  let lastCreated: number | undefined;
  const today = () => new Date(now()).toISOString().slice(0, 10);

  async function sync(): Promise<ReconcileResult | void> {
    const current = await stores.for(t!).get(trackingConfigMapNamespace, trackingConfigMapName).catch((e) => (isReason(e, "NotFound") ? undefined : Promise.reject(e)));
    if (!current) {
      const wait = lastCreated === undefined ? 0 : lastCreated + creationIntervalMs - now();
      if (wait > 0) return { requeueAfterMs: wait };
      const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: trackingConfigMapName, namespace: trackingConfigMapNamespace }, data: { [trackingSinceKey]: today() } };
      await stores.for(t!).create(trackingConfigMapNamespace, body as KObject, { dryRun: false }).catch((e) => (isReason(e, "AlreadyExists") ? undefined : Promise.reject(e)));
      lastCreated = now();
      return;
    }
    const data = (current as { data?: Record<string, string> }).data;
    if (isTrackingDate(data?.[trackingSinceKey])) return;
    const fixed = { ...current, data: { ...(data ?? {}), [trackingSinceKey]: today() } } as KObject;
    await stores
      .for(t!)
      .update(trackingConfigMapNamespace, trackingConfigMapName, { subresource: "", createIfMissing: false, desired: () => fixed }, { dryRun: false })
      .catch((e) => (isReason(e, "NotFound", "Conflict") ? undefined : Promise.reject(e)));
  }

  // One key: the runtime's queue runs one sync at a time, and one more for a change heard meanwhile.
  const key = `${trackingConfigMapNamespace}/${trackingConfigMapName}`;
  const ours = (o: KObject) => o.metadata.namespace === trackingConfigMapNamespace && o.metadata.name === trackingConfigMapName && key;
  return runController({
    name: "legacy-token-tracking-controller",
    watches: [{ informer: informers.forType(t), added: ours, updated: (_old, o) => ours(o), deleted: ours }],
    setup: (ctx) => ctx.enqueue(key),
    reconcile: sync,
    onError: (_key, e) => log(`kapi: legacy token tracking ConfigMap: ${(e as Error).message}`),
    retry: fixedDelayRateLimiter(retryMs),
  });
}
