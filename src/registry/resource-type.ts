// A resource type as the server serves it: upstream facts + the strategy + where it is stored.
import type { GroupResource } from "../apimachinery/errors.js";
import type { ResourceFacts } from "../types/builtin-resources.js";
import type { Strategy } from "./strategy.js";
import type { GracePeriodPolicy } from "../types/graceful-deletion.js";

export interface ResourceType {
  facts: ResourceFacts;
  group: string;
  version: string;
  resource: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  gr: GroupResource;
  /** "v1" or "apps/v1". */
  apiVersion: string;
  /** Storage key prefix shared by all versions of the group-resource, ending in "/". */
  keyPrefix: string;
  strategy: Strategy;
  hasStatus: boolean;
  verbs: ReadonlySet<string>;
  /** Types whose objects are only POSTed and answered (reviews): nothing is stored. */
  virtual: boolean;
  /** Graceful deletion (pods): how long a DELETE waits for the owning agent. */
  gracePeriod?: GracePeriodPolicy;
}

export function storageKey(t: ResourceType, namespace: string, name: string): string {
  return t.namespaced ? `${t.keyPrefix}${namespace}/${name}` : `${t.keyPrefix}${name}`;
}

/** Prefix for a list: one namespace, or all of them ("" namespace). */
export function storagePrefix(t: ResourceType, namespace: string): string {
  return t.namespaced && namespace ? `${t.keyPrefix}${namespace}/` : t.keyPrefix;
}
