// A GET of the current state (no resourceVersion: a consistent read) answered from the type's
// watch cache when the cache provably holds every event storage has committed: the object at the
// resourceVersion storage would return, without a storage read. The served JSON is kept on the
// cache entry as the very bytes a GET answers (its newline included), so an object read again and
// again is stringified and UTF-8 encoded once (serialize once, serve many); a change is a new entry. Upstream 1.34 reads etcd for such a GET; the answer is the same, and a
// cache that cannot tell it is current (not loaded yet, fed by etcd) leaves the read to storage.
// An update's starting state is read the same way (currentFromCache).
import { convertsOnRead, type ResourceType } from "./resource-type.js";
import { servedObject, type ObjectCacher } from "./list.js";
import { deepClone } from "../apimachinery/json-value.js";
import type { KObject } from "../apimachinery/object.js";
import type { KeyValue } from "../storage/interface.js";
import type { Entry } from "../storage/cacher/types.js";

/** The memo key of a GET's bytes per apiVersion, made once: a string built per request is hashed per request. */
const memoKeys = new Map<string, string>();
function getJsonMemoKey(apiVersion: string): string {
  let key = memoKeys.get(apiVersion);
  if (key === undefined) memoKeys.set(apiVersion, (key = `get-json|${apiVersion}`));
  return key;
}

/** The object's JSON bytes as a GET serves them; null when it does not exist; undefined when the cache cannot answer. */
export function currentJsonFromCache(cacher: ObjectCacher | undefined, t: ResourceType, key: string): Buffer | null | undefined | Promise<Buffer | null | undefined> {
  // Types rewritten on read (onDecode) or converted by a webhook are served as storage reads are.
  if (!cacher || t.onDecode || convertsOnRead(t)) return undefined;
  const entry = cacher.serving(t.keyPrefix)?.currentEntry(key);
  return entry instanceof Promise ? entry.then((e) => servedBytes(t, e)) : servedBytes(t, entry);
}

function servedBytes(t: ResourceType, entry: Entry<KObject> | null | undefined): Buffer | null | undefined {
  if (!entry) return entry;
  // Per apiVersion: a cache holds its group-resource for every served version.
  const memoKey = getJsonMemoKey(t.apiVersion);
  let bytes = entry.memo.get(memoKey) as Buffer | undefined;
  if (bytes === undefined) {
    bytes = getBody(JSON.stringify(servedObject(t, entry.object, entry.modRevision)));
    entry.memo.set(memoKey, bytes);
  }
  return bytes;
}

/**
 * The current state of a key for a read-modify-write, from the watch cache when it provably holds
 * it (upstream's cacher hands its cached object to GuaranteedUpdate the same way): a copy the
 * caller may change, stamped as a storage read would be, and the revision a write must find.
 * null: no such key; undefined: the caller reads storage.
 */
export async function currentFromCache(cacher: ObjectCacher | undefined, t: ResourceType, key: string): Promise<{ object: KObject; kv: Pick<KeyValue, "modRevision"> } | null | undefined> {
  if (!cacher || t.onDecode || convertsOnRead(t)) return undefined;
  const entry = await cacher.serving(t.keyPrefix)?.currentEntry(key);
  if (!entry) return entry;
  const object = deepClone(entry.object) as KObject;
  // As decodeFromStorage stamps a stored value: the reader's version, its kind, the revision.
  object.apiVersion = t.apiVersion;
  object.kind = t.kind;
  object.metadata.resourceVersion = String(entry.modRevision);
  return { object, kv: { modRevision: entry.modRevision } };
}

/** A GET's body: the object's JSON and the newline jsonCodec ends every document with. */
export function getBody(json: string): Buffer {
  return Buffer.from(json + "\n");
}
