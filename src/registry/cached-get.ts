// A GET of the current state (no resourceVersion: a consistent read) answered from the type's
// watch cache when the cache provably holds every event storage has committed: the object at the
// resourceVersion storage would return, without a storage read. The served JSON is kept on the
// cache entry as the very bytes a GET answers (its newline included), so an object read again and
// again is stringified and UTF-8 encoded once (serialize once, serve many); a change is a new entry. Upstream 1.34 reads etcd for such a GET; the answer is the same, and a
// cache that cannot tell it is current (not loaded yet, fed by etcd) leaves the read to storage.
import { convertsOnRead, type ResourceType } from "./resource-type.js";
import { servedObject, type ObjectCacher } from "./list.js";

/** The object's JSON bytes as a GET serves them; null when it does not exist; undefined when the cache cannot answer. */
export async function currentJsonFromCache(cacher: ObjectCacher | undefined, t: ResourceType, key: string): Promise<Buffer | null | undefined> {
  // Types rewritten on read (onDecode) or converted by a webhook are served as storage reads are.
  if (!cacher || t.onDecode || convertsOnRead(t)) return undefined;
  const entry = await cacher.serving(t.keyPrefix)?.currentEntry(key);
  if (!entry) return entry;
  // Per apiVersion: a cache holds its group-resource for every served version.
  const memoKey = `get-json|${t.apiVersion}`;
  let bytes = entry.memo.get(memoKey) as Buffer | undefined;
  if (bytes === undefined) {
    bytes = getBody(JSON.stringify(servedObject(t, entry.object, entry.modRevision)));
    entry.memo.set(memoKey, bytes);
  }
  return bytes;
}

/** A GET's body: the object's JSON and the newline jsonCodec ends every document with. */
export function getBody(json: string): Buffer {
  return Buffer.from(json + "\n");
}
