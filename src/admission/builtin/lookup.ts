// What the built-in plugins read: objects of one group-resource from the shared informer (as
// upstream's listers), waiting once for its first list (upstream's admission ReadyFunc), with a
// live read through the store on a miss where upstream does one (the informer may lag a write
// made just before).
import { ApiError } from "../../apimachinery/errors.js";
import type { ObjectInformer } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { AdmissionParts } from "../plugins.js";

/** How long a plugin waits for its informer's first list before reading what it has. */
const readyWaitMs = 10_000;

export interface ObjectLookup {
  /** The object from the informer, else (live) from storage; undefined when it does not exist. */
  get(namespace: string, name: string, opts?: { live?: boolean }): Promise<KObject | undefined>;
  /** Every object (of a namespace) the informer holds. */
  list(namespace?: string): Promise<KObject[]>;
  /** Every object (of a namespace) read from storage. */
  liveList(namespace?: string): Promise<KObject[]>;
  /** False when the group-resource is not served (then nothing exists). */
  served(): boolean;
}

export function objectLookup(parts: () => AdmissionParts, group: string, resource: string): ObjectLookup {
  const typeOf = (): ResourceType | undefined => parts().types.preferred(group, resource);
  const informer = async (): Promise<ObjectInformer | undefined> => {
    const t = typeOf();
    if (!t) return undefined;
    const i = parts().informers.forType(t);
    if (!i.hasSynced()) await Promise.race([i.synced, new Promise((r) => setTimeout(r, readyWaitMs).unref())]);
    return i;
  };
  const liveGet = async (ns: string, name: string): Promise<KObject | undefined> => {
    const t = typeOf();
    if (!t) return undefined;
    try {
      return await parts().stores.for(t).get(t.namespaced ? ns : "", name);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return undefined;
      throw e;
    }
  };
  return {
    served: () => typeOf() !== undefined,
    async get(ns, name, opts) {
      const i = await informer();
      const found = i?.get(ns, name);
      if (found || !opts?.live) return found;
      return liveGet(ns, name);
    },
    async list(ns) {
      const i = await informer();
      return i ? i.list(ns) : [];
    },
    async liveList(ns) {
      const t = typeOf();
      if (!t) return [];
      const { stores } = parts();
      const out: KObject[] = [];
      for (const name of await stores.for(t).storedNames(t.namespaced && ns ? ns : "")) {
        if (name.includes("/")) continue; // another namespace's object under a cluster-wide prefix
        const obj = await liveGet(ns ?? "", name);
        if (obj) out.push(obj);
      }
      return out;
    },
  };
}
