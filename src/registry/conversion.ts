// Storage-version conversion at the store's boundary (custom resources, and events.k8s.io Events
// over core ones; see ResourceType.conversion): objects read from storage are converted to the
// version the request names, objects written are converted to the storage version first. Other
// built-ins have no conversion: both are identities.
import type { KObject } from "../apimachinery/object.js";
import { convertsOnRead, type ResourceType } from "./resource-type.js";

/** Stored objects (decoded with decodeFromStorage) in the type's version. */
export async function servedVersionOf(t: ResourceType, objects: KObject[]): Promise<KObject[]> {
  if (!convertsOnRead(t) || objects.length === 0) return objects;
  if (objects.every((o) => o.apiVersion === t.apiVersion)) return objects;
  return t.conversion!.convert(objects, t.apiVersion);
}

/** One stored object in the type's version. */
export async function servedOne(t: ResourceType, obj: KObject): Promise<KObject> {
  if (!convertsOnRead(t) || obj.apiVersion === t.apiVersion) return obj;
  return (await t.conversion!.convert([obj], t.apiVersion))[0]!;
}

/** The object (in the type's version) as it is written: in the storage version. */
export async function storageVersionOf(t: ResourceType, obj: KObject): Promise<KObject> {
  const c = t.conversion;
  if (!c || c.storageApiVersion === t.apiVersion) return obj;
  if (c.strategy === "None") return { ...obj, apiVersion: c.storageApiVersion };
  return (await c.convert([obj], c.storageApiVersion))[0]!;
}
