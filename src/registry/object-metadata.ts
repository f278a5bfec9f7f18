// Objects as in-process controllers need them: apiVersion, kind and the metadata that says what
// an object is, where it is in its life and who owns it (upstream: PartialObjectMetadata, which
// the garbage collector and the namespace controller watch). A watch cache of these holds a
// fraction of the memory of full objects, so the garbage collector can follow every stored type
// without keeping every object of every type decoded. Left out: managedFields and annotations —
// often the largest parts of metadata (kubectl's last-applied-configuration repeats the whole
// object), read by no controller here; a reader that needs them uses a full informer.
import type { CacheSpec } from "../storage/cacher/cacher.js";
import type { KeyValue } from "../storage/interface.js";
import type { KObject, ObjectMeta } from "../apimachinery/object.js";
import type { ResourceType } from "./resource-type.js";

const kept = [
  "name",
  "namespace",
  "uid",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "finalizers",
  "ownerReferences",
] as const;

export function metadataOf(t: ResourceType, kv: KeyValue): KObject {
  const full = (JSON.parse(kv.value) as KObject).metadata;
  const metadata: ObjectMeta = {};
  for (const k of kept) if (full[k] !== undefined) (metadata as Record<string, unknown>)[k] = full[k];
  metadata.resourceVersion = String(kv.modRevision);
  return { apiVersion: t.apiVersion, kind: t.kind, metadata };
}

/** Partial caches answer no field selector (a full request replaces them first). */
const noFields: Readonly<Record<string, string>> = Object.freeze({});
const noFieldsOf = () => noFields;

/** The partial cache spec of a type: objects reduced to their metadata. */
export function metadataCacheSpec(t: ResourceType): CacheSpec<KObject> {
  return {
    prefix: t.keyPrefix,
    namespaced: t.namespaced,
    partial: true,
    decode: (kv) => {
      const object = metadataOf(t, kv);
      return { object, labels: object.metadata.labels, fieldsOf: noFieldsOf };
    },
  };
}
