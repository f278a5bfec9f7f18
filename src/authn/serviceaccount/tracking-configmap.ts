// kube-system/kube-apiserver-legacy-service-account-token-tracking (upstream
// pkg/controlplane/controller/legacytokentracking): the API server records, in `data.since`, the
// day it began stamping legacy tokens with their last use. A clean-up controller reads it: a token
// with no last-used label is only known to be unused if tracking has been on for long enough.
// The server keeps it present (re-created at most once per half hour, so servers of one cluster
// that disagree do not fight over it) and keeps `since` a valid date.
import type { Controller } from "../../controllers/namespace.js";
import type { InformerFactory } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import type { GenericStore } from "../../registry/store.js";
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
  store: GenericStore;
  types: TypeRegistry;
  informers: InformerFactory;
  log?: (m: string) => void;
  /** ms since the epoch (tests). */
  now?: () => number;
}

const isReason = (e: unknown, ...reasons: string[]) => reasons.includes((e as { reason?: string })?.reason ?? "");

export function startTrackingConfigMapController({ store, types, informers, log = () => {}, now = Date.now }: TrackingConfigMapDeps): Controller | undefined {
  const t = types.get("", "v1", "configmaps");
  if (!t) return undefined;
  let lastCreated: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const today = () => new Date(now()).toISOString().slice(0, 10);

  const later = (ms: number) => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      kick();
    }, ms);
    timer.unref();
  };

  async function sync(): Promise<void> {
    const current = await store.get(t!, trackingConfigMapNamespace, trackingConfigMapName).catch((e) => (isReason(e, "NotFound") ? undefined : Promise.reject(e)));
    if (!current) {
      const wait = lastCreated === undefined ? 0 : lastCreated + creationIntervalMs - now();
      if (wait > 0) return later(wait);
      const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: trackingConfigMapName, namespace: trackingConfigMapNamespace }, data: { [trackingSinceKey]: today() } };
      await store.create(t!, trackingConfigMapNamespace, body as KObject, { dryRun: false }).catch((e) => (isReason(e, "AlreadyExists") ? undefined : Promise.reject(e)));
      lastCreated = now();
      return;
    }
    const data = (current as { data?: Record<string, string> }).data;
    if (isTrackingDate(data?.[trackingSinceKey])) return;
    const fixed = { ...current, data: { ...(data ?? {}), [trackingSinceKey]: today() } } as KObject;
    await store
      .update(t!, trackingConfigMapNamespace, trackingConfigMapName, { subresource: "", createIfMissing: false, desired: () => fixed }, { dryRun: false })
      .catch((e) => (isReason(e, "NotFound", "Conflict") ? undefined : Promise.reject(e)));
  }

  /** One sync at a time; a change heard meanwhile runs one more. */
  function kick(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = sync()
      .catch((e) => {
        log(`kapi: legacy token tracking ConfigMap: ${(e as Error).message}`);
        later(retryMs);
      })
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          kick();
        }
      });
  }

  const ours = (o: KObject) => o.metadata.namespace === trackingConfigMapNamespace && o.metadata.name === trackingConfigMapName;
  const off = informers.forType(t).addHandler({
    added: (o) => ours(o) && kick(),
    updated: (_old, o) => ours(o) && kick(),
    deleted: (o) => ours(o) && kick(),
  });
  kick();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      off();
    },
  };
}
