// Watch caches follow the type registry. A cache is decoded with its type's declaration (kind,
// scope, field selectors), so when the last served version of a group-resource goes, or a type's
// declaration changes, its cache is dropped: open watches end (kube-apiserver likewise tears a
// custom resource's storage down, watches included, when its definition is deleted or changed),
// clients watch again, and a served type gets a fresh cache on its next list or watch.
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
      cacher.drop(event.previous.keyPrefix);
      return;
    }
    const prefix = event.resource.keyPrefix;
    // Versions share one cache: it stays while another version of the group-resource is served.
    if (types.all().some((t) => t.keyPrefix === prefix)) return;
    cacher.drop(prefix);
  });
}
