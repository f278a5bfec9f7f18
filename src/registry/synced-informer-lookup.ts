// The shared informer of a served type, started on first use and waited for until synced: handed
// as a function to in-process readers below the registry (the webhook client's service resolver)
// so that they read objects without importing the registry.
import type { InformerFactory, ObjectInformer } from "./informer-factory.js";
import type { TypeRegistry } from "./type-registry.js";

/** The synced informer of (group, version, resource), or undefined when the type is not served. */
export function syncedInformerLookup(informers: InformerFactory, types: TypeRegistry): (group: string, version: string, resource: string) => Promise<ObjectInformer | undefined> {
  return async (group, version, resource) => {
    const t = types.get(group, version, resource);
    if (!t) return undefined;
    const i = informers.forType(t);
    if (!i.hasSynced()) await i.synced;
    return i;
  };
}
