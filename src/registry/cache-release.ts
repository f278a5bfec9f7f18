// Watch caches follow the type registry. A cache is decoded with its type's declaration (kind,
// scope, field selectors, read defaults), so when the last served version of a group-resource
// goes, or a type's declaration changes in what the cache depends on (ResourceType.cacheIdentity;
// any change for types without one), its cache is dropped: open watches end cleanly, clients
// watch again, and a served type gets a fresh cache on its next list or watch. kube-apiserver
// tears a custom resource's whole storage down, watches included, on any change of the
// definition's spec or accepted names; we keep the cache (and its watches) when the update leaves
// it alone (printer columns, another version's schema, a new served version).
//
// A request that looked its type up before the removal and reaches the cache afterwards may
// start a new cache for the removed prefix; our request path has no await between the two, so
// that cannot happen today.
import type { ObjectCacher } from "./list.js";
import type { TypeRegistry } from "./type-registry.js";

/** Subscribes `cacher` to `types`; returns the unsubscribe function. */
export function releaseCachesOfRetiredTypes(types: TypeRegistry, cacher: ObjectCacher): () => void {
  return types.subscribe((event) => {
    if (event.type === "added") return;
    if (event.type === "updated") {
      // A custom resource's definition update that leaves what the cache is decoded with alone
      // (printer columns, another version's schema, a new served version) keeps the cache, so
      // open watches go on. Otherwise the cache goes and its watches end cleanly: clients re-list.
      const { previous, resource } = event;
      if (previous.keyPrefix === resource.keyPrefix && previous.cacheIdentity !== undefined && previous.cacheIdentity === resource.cacheIdentity) return;
      cacher.drop(previous.keyPrefix);
      return;
    }
    const prefix = event.resource.keyPrefix;
    // Versions share one cache: it stays while another version of the group-resource is served.
    if (types.all().some((t) => t.keyPrefix === prefix)) return;
    cacher.drop(prefix);
  });
}
