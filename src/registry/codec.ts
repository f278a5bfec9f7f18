// Object ⇄ stored bytes. resourceVersion is never stored: it is the key's mod revision,
// filled in on every read (as upstream's etcd3 store does).
import type { KeyValue } from "../storage/interface.js";
import type { KObject } from "./object.js";
import type { ResourceType } from "./resource-type.js";

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
  obj.apiVersion = t.apiVersion;
  obj.kind = t.kind;
  obj.metadata.resourceVersion = String(kv.modRevision);
  return obj;
}
