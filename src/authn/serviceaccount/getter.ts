// Reads the objects a token names (ServiceAccount, Secret, Pod, Node) for the authenticator:
// from the shared metadata informers when they have the object, else straight from the store (an
// informer that has not caught up with a new object must not reject its fresh token). Never writes.
import type { InformerFactory } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { Stores } from "../../registry/stores.js";
import type { TypeRegistry } from "../../registry/type-registry.js";

export interface TokenObjectGetter {
  serviceAccount(namespace: string, name: string): Promise<KObject | undefined>;
  /** Whole ServiceAccount, read live (the legacy check reads its `secrets` list, which metadata lacks). */
  serviceAccountWithSecrets(namespace: string, name: string): Promise<KObject | undefined>;
  pod(namespace: string, name: string): Promise<KObject | undefined>;
  node(name: string): Promise<KObject | undefined>;
  /** Whole Secret (the legacy check compares its data). */
  secret(namespace: string, name: string): Promise<KObject | undefined>;
}

export function storeGetter(stores: Stores, types: TypeRegistry, informers?: InformerFactory): TokenObjectGetter {
  const type = (resource: string) => types.get("", "v1", resource);
  const viaInformer = (t: ResourceType | undefined) => {
    if (!t || !informers) return undefined;
    try {
      return informers.metadataFor(t);
    } catch {
      return undefined;
    }
  };
  const live = async (t: ResourceType | undefined, ns: string, name: string): Promise<KObject | undefined> => {
    if (!t || !name) return undefined;
    try {
      return await stores.for(t).get(ns, name);
    } catch (e) {
      if ((e as { reason?: string }).reason === "NotFound") return undefined;
      throw e;
    }
  };
  // Each informer starts at the first token that needs its kind, not when the authenticator is
  // made (on the first request, which may carry no token at all): a store of many pods would have
  // that request wait for the pods' first page to be read.
  const cached = (resource: string) => {
    const t = type(resource);
    let inf: ReturnType<typeof viaInformer>;
    let started = false;
    return async (ns: string, name: string) => {
      if (!started) (started = true), (inf = viaInformer(t));
      const hit = inf?.hasSynced() ? inf.get(ns, name) : undefined;
      return hit ?? live(t, ns, name);
    };
  };
  const sa = cached("serviceaccounts");
  const pod = cached("pods");
  const node = cached("nodes");
  return {
    serviceAccount: sa,
    serviceAccountWithSecrets: (ns, name) => live(type("serviceaccounts"), ns, name),
    pod,
    node: (name) => node("", name),
    secret: (ns, name) => live(type("secrets"), ns, name),
  };
}
