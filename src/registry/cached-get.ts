// A GET of the current state (no resourceVersion: a consistent read) answered from the type's
// watch cache when the cache provably holds every event storage has committed: the object at the
// resourceVersion storage would return, without a storage read. The served JSON is kept on the
// cache entry, so an object read again and again is encoded once (serialize once, serve many);
// a change is a new entry. Upstream 1.34 reads etcd for such a GET; the answer is the same, and a
// cache that cannot tell it is current (not loaded yet, fed by etcd) leaves the read to storage.
import { convertsOnRead, type ResourceType } from "./resource-type.js";
import { servedObject, type ObjectCacher } from "./list.js";

/** The object's JSON as a GET serves it; null when it does not exist; undefined when the cache cannot answer. */
export async function currentJsonFromCache(cacher: ObjectCacher | undefined, t: ResourceType, key: string): Promise<string | null | undefined> {
  // Types rewritten on read (onDecode) or converted by a webhook are served as storage reads are.
  if (!cacher || t.onDecode || convertsOnRead(t)) return undefined;
  const entry = await cacher.serving(t.keyPrefix)?.currentEntry(key);
  if (!entry) return entry;
  // Per apiVersion: a cache holds its group-resource for every served version.
  const memoKey = `get-json|${t.apiVersion}`;
  let json = entry.memo.get(memoKey) as string | undefined;
  if (json === undefined) {
    json = JSON.stringify(servedObject(t, entry.object, entry.modRevision));
    entry.memo.set(memoKey, json);
  }
  return json;
}
