// Fake server parts for the built-in plugins' unit tests: objects per group-resource that both
// the "informer" and the "store" serve. `informerLags` hides objects from the informer only, as
// when a write has not reached the watch cache yet.
import { notFound } from "../../apimachinery/errors.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { AdmissionParts } from "../plugins.js";

export interface FakeWorld {
  /** "group/resource" → objects (namespaced ones carry metadata.namespace). */
  objects: Record<string, KObject[]>;
  informerLags?: Set<string>;
  /** Live reads made, as "group/resource ns/name". */
  liveReads: string[];
}

const key = (group: string, resource: string) => `${group}/${resource}`;
const namespacedResources = new Set(["serviceaccounts", "limitranges", "secrets", "pods", "persistentvolumeclaims"]);

export function fakeWorld(objects: Record<string, KObject[]> = {}): FakeWorld {
  return { objects, liveReads: [] };
}

export function fakeParts(w: FakeWorld): () => AdmissionParts {
  const typeOf = (group: string, resource: string): ResourceType =>
    ({ group, resource, version: "v1", namespaced: namespacedResources.has(resource), keyPrefix: `/registry/${key(group, resource)}/`, gr: { group, resource } }) as ResourceType;
  const all = (t: ResourceType) => w.objects[key(t.group, t.resource)] ?? [];
  const visible = (t: ResourceType) => all(t).filter((o) => !w.informerLags?.has(o.metadata.name!));
  const match = (o: KObject, ns: string | undefined, name?: string) => (ns === undefined || !ns || o.metadata.namespace === ns || !o.metadata.namespace) && (name === undefined || o.metadata.name === name);
  const parts = {
    types: { preferred: (group: string, resource: string) => typeOf(group, resource) },
    informers: {
      forType: (t: ResourceType) => ({
        hasSynced: () => true,
        synced: Promise.resolve(),
        get: (ns: string, name: string) => visible(t).find((o) => match(o, ns, name)),
        list: (ns?: string) => visible(t).filter((o) => match(o, ns)),
      }),
    },
    stores: {
      for: (t: ResourceType) => ({
        get: async (ns: string, name: string) => {
          w.liveReads.push(`${key(t.group, t.resource)} ${ns}/${name}`);
          const found = all(t).find((o) => match(o, ns, name));
          if (!found) throw notFound(t.gr, name);
          return found;
        },
        storedNames: async (ns: string) => {
          w.liveReads.push(`names ${key(t.group, t.resource)} ${ns}`);
          return all(t).filter((o) => !ns || o.metadata.namespace === ns).map((o) => o.metadata.name!);
        },
      }),
    },
  };
  return () => parts as unknown as AdmissionParts;
}

export const podsType = { group: "", version: "v1", resource: "pods", kind: "Pod", namespaced: true, gr: { group: "", resource: "pods" } } as ResourceType;
export const typeFor = (group: string, resource: string, namespaced = true) => ({ group, version: "v1", resource, namespaced, gr: { group, resource } }) as ResourceType;
