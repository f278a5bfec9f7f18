// Object ⇄ stored bytes. resourceVersion is never stored: it is the key's mod revision,
// filled in on every read (as upstream's etcd3 store does).
import type { KeyValue } from "../storage/interface.js";
import type { KObject } from "../apimachinery/object.js";
import { convertsOnRead, type ResourceType } from "./resource-type.js";

export function encodeForStorage(obj: KObject): string {
  const rv = obj.metadata.resourceVersion;
  if (rv === undefined) return JSON.stringify(obj);
  delete obj.metadata.resourceVersion;
  try {
    return JSON.stringify(obj);
  } finally {
    obj.metadata.resourceVersion = rv;
  }
}

export function decodeFromStorage(kv: KeyValue, t: ResourceType): KObject {
  const obj = JSON.parse(kv.value) as KObject;
  // Webhook-converted types keep the stored apiVersion: the converter needs it (see conversion.ts).
  if (!convertsOnRead(t)) obj.apiVersion = t.apiVersion;
  obj.kind = t.kind;
  obj.metadata.resourceVersion = String(kv.modRevision);
  if (t.onDecode) t.onDecode(obj);
  return obj;
}

/** Per type: the served JSON of recently read objects by key, for types decoded with a hook. */
const decodedJsonCache = new WeakMap<ResourceType, Map<string, { rev: number; json: string }>>();
const decodedJsonCacheSize = 1024;

/**
 * The served JSON of a stored object of a type with an `onDecode` hook (custom resources): decoded
 * and defaulted once per stored revision, then reused by every GET of that revision. The cache
 * belongs to the type object, so a changed type (new schema, new defaults) starts afresh.
 */
export function decodedJson(kv: KeyValue, t: ResourceType): string {
  let cache = decodedJsonCache.get(t);
  if (!cache) decodedJsonCache.set(t, (cache = new Map()));
  const hit = cache.get(kv.key);
  if (hit && hit.rev === kv.modRevision) return hit.json;
  const json = JSON.stringify(decodeFromStorage(kv, t));
  cache.delete(kv.key);
  if (cache.size >= decodedJsonCacheSize) cache.delete(cache.keys().next().value!);
  cache.set(kv.key, { rev: kv.modRevision, json });
  return json;
}

/**
 * The object's JSON as served, straight from the stored bytes when they start with exactly this
 * type's kind/apiVersion/metadata prefix (how the store writes them): the resourceVersion is
 * spliced in after `"metadata":{`, with no parse and no re-encode. Undefined otherwise (the
 * caller decodes).
 */
export function servedJson(kv: KeyValue, t: ResourceType): string | undefined {
  return spliceResourceVersion(t, kv.value, kv.modRevision);
}

export function spliceResourceVersion(t: ResourceType, stored: string, revision: number): string | undefined {
  const prefix = storedPrefix(t);
  if (!stored.startsWith(prefix)) return undefined;
  const rest = stored.slice(prefix.length);
  const rv = `"resourceVersion":"${revision}"`;
  return prefix + (rest.startsWith("}") ? rv : rv + ",") + rest;
}

const prefixes = new WeakMap<ResourceType, string>();
function storedPrefix(t: ResourceType): string {
  let p = prefixes.get(t);
  if (p === undefined) prefixes.set(t, (p = `{"kind":${JSON.stringify(t.kind)},"apiVersion":${JSON.stringify(t.apiVersion)},"metadata":{`));
  return p;
}
