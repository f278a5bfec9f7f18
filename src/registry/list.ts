// LIST: the resourceVersion × resourceVersionMatch × paging table of the spec, answered from the
// watch cache where upstream 1.34 does (consistent reads via ConsistentListFromCache, "0" and
// NotOlderThan, pages and continuations while the cache holds their snapshot) and from storage
// otherwise (Exact at a version the cache no longer has, deletecollection).
import { ApiError, badRequest } from "../apimachinery/errors.js";
import { unsupportedFieldError } from "../apimachinery/fields.js";
import { CacheError, type Entry, type Predicate } from "../storage/cacher/types.js";
import type { Cacher, CacheSpec } from "../storage/cacher/cacher.js";
import type { WatchCache } from "../storage/cacher/watch-cache.js";
import { CorruptValueError, StorageError, type KeyValue } from "../storage/interface.js";
import { decodeFromStorage } from "./codec.js";
import { shareUnchanged } from "./share-unchanged.js";
import { shareSubtrees } from "./shared-subtrees.js";
import { decodeContinue, encodeContinue } from "./continue-token.js";
import { tooLargeError, tooOldError, type ListOptions } from "./list-options.js";
import type { KObject } from "../apimachinery/object.js";
import { convertsOnRead, storagePrefix, type ResourceType } from "./resource-type.js";
import { servedVersionOf } from "./conversion.js";
import { parseResourceVersion } from "./resource-version.js";
import type { GenericStore } from "./store.js";

export interface ListResult {
  items: KObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
  /** When served from the cache: the entries behind `items`, whose encodings are memoised. */
  entries?: Entry<KObject>[];
}

export type ObjectCacher = Cacher<KObject>;

/** The fields a field selector may name for this type, with their values (upstream: field label conversion). */
export function objectFields(t: ResourceType, obj: KObject): Record<string, string> {
  return t.fieldSelectors.values(obj);
}

export function checkFieldSelector(t: ResourceType, opts: ListOptions): void {
  if (opts.fieldSelector.isEmpty()) return;
  for (const r of opts.fieldSelector.requirements()) {
    if (!t.fieldSelectors.names.has(r.field)) throw badRequest(unsupportedFieldError(r.field));
  }
}

export function matchesSelectors(t: ResourceType, opts: ListOptions, obj: KObject): boolean {
  if (!opts.labelSelector.isEmpty() && !opts.labelSelector.matches(obj.metadata.labels)) return false;
  if (!opts.fieldSelector.isEmpty() && !opts.fieldSelector.matches(objectFields(t, obj))) return false;
  return true;
}

const cacheSpecs = new WeakMap<ResourceType, CacheSpec<KObject>>();

/**
 * A type's objects are made to share equal parts from its this-many-th decode on. Sharing pays
 * where a type holds many alike objects (a ReplicaSet's pods); the start-up's few of a kind (the
 * RBAC policy, priority levels) gain nothing from it and would pay it, in still-cold code, before
 * the server is ready (~10 ms of a first start).
 */
const shareFromDecode = 128;

/** The cache spec of a type (made once per type): one cache per key prefix, objects decoded once with their selector attributes. */
export function cacheSpec(t: ResourceType): CacheSpec<KObject> {
  let spec = cacheSpecs.get(t);
  if (!spec) {
    let decodes = 0;
    const fieldsOf = (object: KObject) => objectFields(t, object);
    spec = {
      prefix: t.keyPrefix,
      namespaced: t.namespaced,
      decode: (kv: KeyValue, prev?: KObject) => {
        const decoded = decodeFromStorage(kv, t);
        // Unchanged parts first: a new version keeps its predecessor's parts even when the shared
        // parts' table has started afresh since.
        const object = prev ? (shareUnchanged(decoded, prev) as KObject) : decoded;
        if (++decodes > shareFromDecode) shareSubtrees(object as unknown as Record<string, unknown>);
        return { object, labels: object.metadata.labels, fieldsOf };
      },
    };
    cacheSpecs.set(t, spec);
  }
  return spec;
}

/** Selectors and scope of a request as the cache's predicate. */
export function predicateFor(t: ResourceType, ns: string, opts: ListOptions): Predicate {
  const fields = opts.fieldSelector;
  const filtering = !opts.labelSelector.isEmpty() || !fields.isEmpty();
  return {
    prefix: storagePrefix(t, ns),
    namespace: t.namespaced ? ns || fields.requiresExactMatch("metadata.namespace") || "" : "",
    name: fields.requiresExactMatch("metadata.name") ?? "",
    matches: filtering
      ? (e) => (opts.labelSelector.isEmpty() || opts.labelSelector.matches(e.labels)) && (fields.isEmpty() || fields.matches(e.fields))
      : undefined,
  };
}

/** The object as a given version serves it, stamped with `rv` (the cached object is shared: copy). */
export function servedObject(t: ResourceType, obj: KObject, rv: number): KObject {
  // Webhook-converted types: still in the stored version; the caller converts (servedObjects).
  return { ...obj, apiVersion: convertsOnRead(t) ? obj.apiVersion : t.apiVersion, kind: t.kind, metadata: { ...obj.metadata, resourceVersion: String(rv) } };
}

const compactedContinueMessage =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/** 410 for a compacted continue token, carrying a token that continues at the latest revision. */
class ExpiredContinue extends ApiError {
  constructor(private readonly token: string) {
    super(410, "Expired", compactedContinueMessage);
  }
  override toStatus(): Record<string, unknown> {
    const s = super.toStatus();
    s.metadata = { continue: this.token };
    return s;
  }
}

/**
 * `signal` (the request's) stops a wait for a revision not reached yet. Throws CacheError when the
 * watch cache cannot serve the read (toApiError maps it).
 */
export async function listObjects(store: GenericStore, ns: string, opts: ListOptions, cacher?: ObjectCacher, signal?: AbortSignal): Promise<ListResult> {
  const t = store.type;
  const res = await listStored(store, t, ns, opts, cacher, signal).catch((e: unknown) => {
    // A watch cache that could not load: its storage read met values that cannot be read.
    throw e instanceof CorruptValueError ? store.corruptListError(e) : e;
  });
  if (!convertsOnRead(t) || !res.entries) return res;
  // From the cache, still in the stored version: one conversion call for the page, and no
  // memoised per-entry JSON (that is for lists in the stored version).
  const items = await servedVersionOf(t, res.items);
  const { entries: _e, items: _i, ...rest } = res;
  return { ...rest, items };
}

async function listStored(store: GenericStore, t: ResourceType, ns: string, opts: ListOptions, cacher?: ObjectCacher, signal?: AbortSignal): Promise<ListResult> {
  checkFieldSelector(t, opts);
  const prefix = storagePrefix(t, ns);
  const rv = parseResourceVersion(opts.resourceVersion);
  const m = opts.resourceVersionMatch;
  if (opts.continueToken) {
    const c = decodeContinue(opts.continueToken, prefix);
    if (rv !== undefined && rv !== 0) throw badRequest("specifying resource version is not allowed when using continue");
    if (cacher) {
      const cache = await cacher.get(cacheSpec(t));
      if (c.rv < 0) return pageFromCache(t, cache, opts, prefix, await cache.syncToStorage(), c.after);
      const snap = cache.snapshotAt(c.rv);
      if (snap) return fromCache(t, cache.list(predicateFor(t, ns, opts), { after: c.after, limit: opts.limit, snapshot: snap, revision: c.rv }), opts, prefix);
    }
    return await listFromStorage(store, t, prefix, opts, c.rv > 0 ? c.rv : undefined, c.after, true, signal);
  }
  const exact = m === "Exact" || (m === "" && opts.limit > 0 && rv !== undefined && rv > 0);
  if (exact) {
    if (cacher) {
      const cache = await cacher.get(cacheSpec(t));
      const snap = cache.snapshotAt(rv!);
      if (snap) return fromCache(t, cache.list(predicateFor(t, ns, opts), { limit: opts.limit, snapshot: snap, revision: rv }), opts, prefix);
    }
    return await listFromStorage(store, t, prefix, opts, rv, "", false, signal);
  }
  if (!cacher) return await listFromStorage(store, t, prefix, opts, undefined, "", false);
  const cache = await cacher.get(cacheSpec(t)).catch((e: unknown) => {
    // A cache that cannot load (an unreadable object somewhere in the type) leaves consistent
    // lists to storage, as upstream delegates them while its cache is not ready: a namespace
    // without such an object still lists.
    if (e instanceof CorruptValueError && rv === undefined) return undefined;
    throw e;
  });
  if (!cache) return await listFromStorage(store, t, prefix, opts, undefined, "", false, signal);
  if (rv === undefined) return await consistentList(store, t, cache, opts, prefix, signal);
  // "0" (Any): upstream's cache ignores limit for it; NotOlderThan N: wait until the cache has N.
  if (rv === 0) return fromCache(t, cache.list(predicateFor(t, ns, opts)), opts, prefix);
  await cache.waitUntilFresh(rv, undefined, signal);
  return pageFromCache(t, cache, opts, prefix, cache.revision, undefined);
}

/**
 * A list at the current revision from the cache once it has caught up with storage; a cache
 * that does not catch up in time leaves the list to storage, as upstream's delegator falls back
 * to etcd. Each is counted by whether it was answered and whether storage answered it.
 */
async function consistentList(store: GenericStore, t: ResourceType, cache: WatchCache<KObject>, opts: ListOptions, prefix: string, signal?: AbortSignal): Promise<ListResult> {
  let fallback = false;
  try {
    try {
      await cache.syncToStorage();
    } catch (e) {
      if (!(e instanceof CacheError && e.code === "TooLarge")) throw e;
      fallback = true;
      const listed = await listFromStorage(store, t, prefix, opts, undefined, "", false, signal);
      cache.noteConsistentRead(true, true);
      return listed;
    }
    const listed = pageFromCache(t, cache, opts, prefix, cache.revision, undefined);
    cache.noteConsistentRead(true, false);
    return listed;
  } catch (e) {
    cache.noteConsistentRead(false, fallback);
    throw e;
  }
}

function pageFromCache(t: ResourceType, cache: WatchCache<KObject>, opts: ListOptions, prefix: string, _rev: number, after: string | undefined): ListResult {
  const res = cache.list(predicateFor(t, namespaceOf(t, prefix), opts), { after, limit: opts.limit });
  if (res.more) cache.snapshotForPaging(); // same tick as the read: the snapshot is this state
  return fromCache(t, res, opts, prefix);
}

function namespaceOf(t: ResourceType, prefix: string): string {
  if (!t.namespaced || prefix === t.keyPrefix) return "";
  return prefix.slice(t.keyPrefix.length, -1);
}

function fromCache(t: ResourceType, res: { items: Entry<KObject>[]; revision: number; more: boolean; remaining: number; lastKey: string }, opts: ListOptions, prefix: string): ListResult {
  let items: KObject[] | undefined;
  const out: ListResult = {
    // Built only when a caller needs objects (Table, YAML, ...): JSON lists use `entries`.
    get items() {
      return (items ??= res.items.map((e) => servedObject(t, e.object, e.modRevision)));
    },
    entries: res.items,
    resourceVersion: String(res.revision),
  };
  if (res.more) {
    out.continue = encodeContinue(res.revision, res.lastKey, prefix);
    if (opts.labelSelector.isEmpty() && opts.fieldSelector.isEmpty()) out.remainingItemCount = res.remaining;
  }
  return out;
}

/** Range storage at `readAt` (undefined = current), paging through selector misses. */
async function listFromStorage(store: GenericStore, t: ResourceType, prefix: string, opts: ListOptions, readAt: number | undefined, after: string, isContinue: boolean, signal?: AbortSignal): Promise<ListResult> {
  if (readAt !== undefined) {
    const current = await store.currentRevision();
    if (readAt > current) {
      try {
        await store.waitForRevision(readAt, signal);
      } catch {
        throw tooLargeError(readAt, await store.currentRevision());
      }
    }
  }
  const filtering = !opts.labelSelector.isEmpty() || !opts.fieldSelector.isEmpty();
  const items: KObject[] = [];
  let revision = 0;
  let lastKey = "";
  let more = false;
  let remaining = 0;
  const page = opts.limit > 0 ? Math.max(opts.limit, filtering ? 500 : opts.limit) : 0;
  let startAfter = after || undefined;
  let fetched = 0;
  let evaluated = 0;
  for (;;) {
    let res;
    try {
      res = await store.listStored(namespaceOf(t, prefix), { revision: readAt, startAfter, limit: page || undefined });
    } catch (e) {
      if (e instanceof StorageError && e.code === "Compacted") {
        throw isContinue ? new ExpiredContinue(encodeContinue(-1, after, prefix)) : tooOldError();
      }
      throw e;
    }
    revision = res.revision;
    readAt = res.revision; // every further page reads the same snapshot
    fetched += res.items.length;
    let stoppedEarly = false;
    for (let i = 0; i < res.items.length; i++) {
      const { key, object: obj } = res.items[i]!;
      lastKey = key;
      evaluated++;
      if (!filtering || matchesSelectors(t, opts, obj)) items.push(obj);
      if (opts.limit > 0 && items.length >= opts.limit) {
        more = i < res.items.length - 1 || res.more;
        remaining = res.items.length - 1 - i + res.remaining;
        stoppedEarly = true;
        break;
      }
    }
    if (stoppedEarly || !res.more || res.items.length === 0) break;
    startAfter = lastKey;
  }
  store.listedFromStorage({ fetched, evaluated, returned: items.length });
  const out: ListResult = { items, resourceVersion: String(revision) };
  if (more) {
    out.continue = encodeContinue(revision, lastKey, prefix);
    if (!filtering) out.remainingItemCount = remaining;
  }
  return out;
}
