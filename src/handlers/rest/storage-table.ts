// Which REST storage serves a request's resource or resource/subresource. A subresource is
// served only when the type declares it and a storage implements it: by one registered for the
// type's group/resource (a pod's binding, a service account's token), or by one any type gets for
// what it declares (status, scale). A declared subresource nobody implements has no storage, so
// its path is unknown (404).
import type { ResourceType } from "../../registry/resource-type.js";
import type { RestStorage } from "./capabilities.js";

/**
 * One storage a feature contributes: for one group/resource's resource or subresource, or, with
 * anyType, for the subresource of every type that declares it.
 */
export type StorageRegistration =
  | { readonly group: string; readonly resource: string; readonly subresource: string; readonly storage: RestStorage }
  | { readonly anyType: true; readonly subresource: string; readonly storage: RestStorage };

/** Where a registration is kept: two registrations with one key would serve one path. */
export function registrationKey(r: StorageRegistration): string {
  return "anyType" in r ? `*/*/${r.subresource}` : key(r.group, r.resource, r.subresource);
}

export class RestStorageTable {
  private readonly byGroupResource = new Map<string, RestStorage>();
  private readonly forAnyType = new Map<string, RestStorage>();

  /**
   * @param resourceStorage serves every stored type's own verbs (the generic store's); types
   *   that store nothing (virtual) get none unless one is registered for them.
   */
  constructor(private readonly resourceStorage: RestStorage) {}

  /** The storage of one group/resource ("" subresource: the resource itself). */
  register(group: string, resource: string, subresource: string, storage: RestStorage): this {
    this.byGroupResource.set(key(group, resource, subresource), storage);
    return this;
  }

  /** The storage of a subresource for every type that declares it (status, scale). */
  registerForAnyType(subresource: string, storage: RestStorage): this {
    this.forAnyType.set(subresource, storage);
    return this;
  }

  add(r: StorageRegistration): this {
    return "anyType" in r ? this.registerForAnyType(r.subresource, r.storage) : this.register(r.group, r.resource, r.subresource, r.storage);
  }

  storageFor(t: ResourceType, subresource: string): RestStorage | undefined {
    const own = this.byGroupResource.get(key(t.group, t.resource, subresource));
    if (subresource === "") return own ?? (t.virtual ? undefined : this.resourceStorage);
    if (!t.subresources.some((s) => s.name === subresource)) return undefined;
    return own ?? this.forAnyType.get(subresource);
  }
}

function key(group: string, resource: string, subresource: string): string {
  return `${group}/${resource}/${subresource}`;
}
