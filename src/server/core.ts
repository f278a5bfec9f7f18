// The server's core: the storage backend, the watch caches over it, the informers over those,
// and the store every read and write goes through. Features plug into it (features/); the
// store's admission chain is bound once the features' plugins are built.
import { DeferredAdmission } from "../admission/deferred-admission.js";
import type { KObject } from "../apimachinery/object.js";
import { InformerFactory } from "../registry/informer-factory.js";
import { storageKey } from "../registry/resource-type.js";
import { resourceOfKey } from "../registry/storage-resources.js";
import { Stores } from "../registry/stores.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import { Cacher } from "../storage/cacher/cacher.js";
import type { WatchCache, WatchCacheOptions } from "../storage/cacher/watch-cache.js";
import type { WatchCacheObserver } from "../storage/cacher/types.js";
import type { Etcd3Storage } from "../storage/etcd3/etcd3-storage.js";
import { StorageError, type Storage } from "../storage/interface.js";
import { MemoryStorage } from "../storage/memory/memory-storage.js";
import { SqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { borrowedStorage } from "../storage/common/borrowed-storage.js";
import { observedStorage, type StorageRequestObserver } from "../storage/common/observed-storage.js";
import type { ServerMetrics } from "../observability/metrics.js";
import type { ResourceStats } from "../observability/storage-metrics.js";
import { StorageRequestMetrics } from "../observability/storage-request-metrics.js";
import { join } from "node:path";
import type { FeatureGates } from "../apimachinery/feature-gates.js";
import { encryptionAtRest, type EncryptionAtRest } from "./encryption-at-rest.js";
import type { CoreParts } from "./features/feature-module.js";
import type { ServerOptions } from "./options.js";

/** The watch cache metrics of a prefix's cache, by the group and resource stored under it. */
function watchCacheObserver(types: TypeRegistry, metrics: ServerMetrics): (prefix: string) => WatchCacheObserver | undefined {
  const resourceOf = resourceOfKey(types);
  return (prefix) => {
    const gr = resourceOf(prefix);
    return gr && { ...metrics.watchCache.seriesOf(gr.group, gr.resource), decodeFailed: () => metrics.storage.decodeFailed(gr.group, gr.resource) };
  };
}

/** Library-only tuning (no kube-apiserver flag): watch cache and storage history windows, for tests. */
export interface CacheTuning {
  watchCache?: Partial<WatchCacheOptions>;
  storageHistoryWindowMs?: number;
  /**
   * A backend this server shares with others in the process instead of opening its own (replica
   * tests): it reads and writes it, never closes it.
   */
  sharedStorage?: Storage;
}

export interface OpenCore extends CoreParts {
  cacher: Cacher<KObject>;
  /** Bind the admission chain here once it is built; writes before that fail. */
  admission: DeferredAdmission;
  /** Stored objects per resource ("resource.group"), for the storage objects metric. */
  countObjects(): Promise<Map<string, ResourceStats>>;
  /** The databases' sizes, for the storage size metric (none for memory or a borrowed backend). */
  storageSizes(): Promise<{ clusterId: string; endpoint: string; bytes: number }[]>;
  /** Encryption at rest (stop() ends the polling of a reloading configuration file). */
  encryption: EncryptionAtRest;
  /** The etcd clusters of --etcd-servers-overrides, each with a health check of its own. */
  storageOverrides: readonly Storage[];
  /** Stops the informers and caches and closes the storage (a start that fails half-way). */
  close(): Promise<void>;
}

export async function openCore(o: ServerOptions & CacheTuning, types: TypeRegistry, gates: FeatureGates, metrics?: ServerMetrics): Promise<OpenCore> {
  const historyWindowMs = o.storageHistoryWindowMs;
  // The encryption configuration is read first: a bad file refuses the start before storage opens.
  const encryption = encryptionAtRest(o, metrics && ((...a) => metrics.transformation.observe(...a)));
  const { storage: backend, clusters, overrides } = o.sharedStorage ? { storage: borrowedStorage(o.sharedStorage), clusters: [], overrides: [] } : await openStorage(o, types);
  const storage = encryption.wrap(metrics ? observeRequests(backend, clusters, o, types, metrics) : backend, types);
  // The watch caches replay no history from before this start (watch-cache.ts, historyFrom).
  const historyFrom = await startRevisions(storage, overrides.length > 0 ? types.stored().map((t) => t.keyPrefix) : []);
  const observe = metrics ? watchCacheObserver(types, metrics) : undefined;
  const cacher = new Cacher<KObject>(storage, { ...(historyWindowMs ? { windowMs: historyWindowMs } : {}), historyFrom, ...(observe ? { observe } : {}), ...o.watchCache });
  const informers = new InformerFactory(cacher, types, (e) => o.log(`kapi: an informer handler failed: ${(e as Error)?.stack ?? String(e)}`));
  // Admission plugins read through the store: the store comes first, the chain is bound later.
  const admission = new DeferredAdmission();
  const stores = new Stores(
    storage,
    admission,
    {
      serviceClusterIPRange: o.serviceClusterIPRange,
      serviceNodePortRange: o.serviceNodePortRange,
      eventTtlSeconds: o.eventTtlSeconds,
      allowUnsafeMalformedObjectDeletion: gates.enabled("AllowUnsafeMalformedObjectDeletion"),
      ...(metrics ? { celTimings: metrics.cel } : {}),
    },
    cacher,
    metrics ? { storageList: (group, resource, counts) => metrics.storage.listed(group, resource, counts), decodeFailed: (group, resource) => metrics.storage.decodeFailed(group, resource) } : {},
  );
  // A raw read first: what exists is not written again (nor passes admission again).
  const ensure: CoreParts["ensure"] = async (t, ns, obj, fieldManager) => {
    if (!t || (await storage.get(storageKey(t, ns, obj.metadata.name!)))) return;
    await stores.for(t).create(ns, obj, { dryRun: false, ...(fieldManager ? { fieldManager } : {}) }).catch((e) => {
      if (e?.reason !== "AlreadyExists") throw e;
    });
  };
  const estimateSizes = gates.enabled("SizeBasedListCostEstimate");
  const countNow = async () => {
    const counts = new Map<string, ResourceStats>();
    for (const t of types.all()) {
      if (t.virtual) continue;
      const name = t.group ? `${t.resource}.${t.group}` : t.resource;
      if (counts.has(name)) continue;
      const objects = await storage.count(t.keyPrefix);
      counts.set(name, estimateSizes ? { objects, sizeBytes: sizeEstimate(objects, cacher.peek(t.keyPrefix)) } : { objects });
    }
    return counts;
  };
  // On etcd, counting is a range per resource: polled every --etcd-count-metric-poll-period, as
  // kube-apiserver does, instead of on every scrape.
  const counts = o.storageBackend === "etcd3" ? polledCounts(countNow, o.etcd.countMetricPollPeriodMs, o.log) : { latest: countNow, stop: () => undefined };
  return {
    storage,
    cacher,
    informers,
    stores,
    types,
    admission,
    log: o.log,
    ensure,
    async ensureAll(t, ns, objs, fieldManager) {
      if (!t) return;
      const present = await Promise.all(objs.map((o) => storage.get(storageKey(t, ns, o.metadata.name!))));
      const missing = objs.filter((_, i) => !present[i]);
      // Written together; should one appear meanwhile (another writer), each is ensured alone
      // (those an earlier etcd commit of the batch wrote are found and left as they are).
      await stores.createAll(missing.map((object) => ({ type: t, namespace: ns, object })), { dryRun: false, ...(fieldManager ? { fieldManager } : {}) }).catch(async (e) => {
        if (!(e instanceof StorageError && e.code === "KeyExists")) throw e;
        await Promise.all(missing.map((o) => ensure(t, ns, o, fieldManager)));
      });
    },
    countObjects: counts.latest,
    async storageSizes() {
      // Named as upstream names the storage it monitors: "etcd-<index>", one per cluster.
      if (o.sharedStorage) return [];
      // A cluster that does not answer is left out, as upstream's monitor leaves it.
      if (o.storageBackend === "etcd3") {
        const sizes = await Promise.all(clusters.map((c, i) => c.dbSize().then((bytes) => ({ clusterId: `etcd-${i}`, endpoint: c.endpoint, bytes }), () => undefined)));
        return sizes.filter((x) => x !== undefined);
      }
      if (o.storageBackend === "sqlite") return [{ clusterId: "sqlite-0", endpoint: (backend as SqliteStorage).path, bytes: (backend as SqliteStorage).sizeOnDisk() }];
      return [];
    },
    storageOverrides: overrides,
    encryption,
    async close() {
      encryption.stop();
      counts.stop();
      informers.stop();
      cacher.stop();
      await storage.close();
    },
  };
}

/**
 * The revision of each store as the server opens it, by key prefix. Storage split among etcd
 * clusters has a revision counter per cluster: the prefixes of the types built in (the only ones
 * --etcd-servers-overrides can move) are each asked; every other prefix is the main store's.
 */
async function startRevisions(storage: Storage, splitPrefixes: readonly string[]): Promise<(prefix: string) => number> {
  const main = await storage.currentRevision();
  const own = new Map(await Promise.all(splitPrefixes.map(async (p) => [p, await storage.currentRevision(p)] as const)));
  return (prefix) => own.get(prefix) ?? main;
}

/** The backend --storage-backend names (and its etcd clusters); etcd's client is loaded only when it is the one. */
async function openStorage(o: ServerOptions & CacheTuning, types: TypeRegistry): Promise<{ storage: Storage; clusters: Etcd3Storage[]; overrides: Etcd3Storage[] }> {
  const historyWindowMs = o.storageHistoryWindowMs;
  if (o.storageBackend === "sqlite") return { storage: await SqliteStorage.open({ path: join(o.dataDir, "kapi.db"), historyWindowMs }), clusters: [], overrides: [] };
  if (o.storageBackend === "memory") return { storage: new MemoryStorage({ historyWindowMs }), clusters: [], overrides: [] };
  const { openEtcdStorage } = await import("./etcd-storage.js");
  return openEtcdStorage(o, types);
}

/**
 * The backend's request metrics: etcd's as kube-apiserver's (the etcd3 store times itself), the
 * same shape under `sqlite_` for SQLite; none for memory or a backend another server owns.
 */
function observeRequests(backend: Storage, clusters: readonly Etcd3Storage[], o: ServerOptions & CacheTuning, types: TypeRegistry, metrics: ServerMetrics): Storage {
  if (o.sharedStorage || o.storageBackend === "memory") return backend;
  const m = new StorageRequestMetrics(o.storageBackend === "etcd3" ? "etcd" : "sqlite");
  metrics.register(...m.families);
  const resourceOf = resourceOfKey(types);
  const observe: StorageRequestObserver = (operation, key, seconds, failed) => m.observe({ operation, ...(resourceOf(key) ?? { group: "", resource: "" }), seconds, failed });
  // A watch is of one resource's prefix: its cells are found when it starts.
  const watched = (prefix: string) => {
    const gr = resourceOf(prefix);
    return gr && metrics.storage.watchSeries(gr.group, gr.resource);
  };
  if (o.storageBackend === "sqlite") return observedStorage(backend, observe, watched);
  for (const c of clusters) {
    c.onRequest = observe;
    c.onWatch = watched;
    c.onLeaseGranted = (n) => metrics.storage.leaseGranted(n);
  }
  return backend;
}

/**
 * The estimated bytes of `objects` stored objects: their count times the average size of the
 * values the resource's watch cache holds (upstream averages the last sizes its storage saw in
 * lists and watch events); -1 when there are objects and no value was seen (no cache yet).
 */
function sizeEstimate(objects: number, cache: WatchCache<KObject> | undefined): number {
  if (objects === 0) return 0;
  if (!cache || cache.objectCount === 0) return -1;
  return Math.floor(cache.storedSize / cache.objectCount) * objects;
}

/** Counts refreshed every `periodMs` (0: never; the metric is then empty). */
function polledCounts(count: () => Promise<Map<string, ResourceStats>>, periodMs: number, log: (msg: string) => void) {
  let latest = new Map<string, ResourceStats>();
  let running = false;
  const poll = async () => {
    if (running) return;
    running = true;
    try {
      latest = await count();
    } catch (e) {
      // etcd unreachable: keep the last counts until a poll succeeds.
      log(`kapi: counting stored objects failed: ${(e as Error).message}`);
    } finally {
      running = false;
    }
  };
  const timer = periodMs > 0 ? setInterval(() => void poll(), periodMs) : undefined;
  timer?.unref();
  if (timer) void poll();
  return { latest: async () => latest, stop: () => clearInterval(timer) };
}

