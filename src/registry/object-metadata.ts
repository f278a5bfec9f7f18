// Objects as in-process controllers mostly need them: apiVersion, kind and metadata only (upstream:
// PartialObjectMetadata, which the garbage collector and the namespace controller watch). A watch
// cache of these holds a fraction of the memory of full objects, so the garbage collector can
// follow every stored type without keeping every object of every type decoded. managedFields
// are left out too: they are often the largest part of metadata and no controller reads them.
import type { CacheSpec } from "../storage/cacher/cacher.js";
import type { KeyValue } from "../storage/interface.js";
import type { KObject } from "./object.js";
import type { ResourceType } from "./resource-type.js";

/** Partial caches answer no field selector (a full request replaces them first). */
const noFields: Readonly<Record<string, string>> = Object.freeze({});

export function metadataOf(t: ResourceType, kv: KeyValue): KObject {
  const { managedFields: _dropped, ...metadata } = (JSON.parse(kv.value) as KObject).metadata;
  metadata.resourceVersion = String(kv.modRevision);
  return { apiVersion: t.apiVersion, kind: t.kind, metadata };
}

/** The partial cache spec of a type: objects reduced to their metadata. */
export function metadataCacheSpec(t: ResourceType): CacheSpec<KObject> {
  return {
    prefix: t.keyPrefix,
    namespaced: t.namespaced,
    partial: true,
    decode: (kv) => {
      const object = metadataOf(t, kv);
      return { object, labels: object.metadata.labels, fields: noFields };
    },
  };
}
