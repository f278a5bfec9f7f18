// The REST storages of the built-in types (upstream: each API group's storage provider). Every
// stored type gets the generic store's verbs; status is served for every type that declares it
// (custom resources too); the object views belong to one group/resource each. The storages that
// act rather than store (scale, the pod subresources, a service account's token, the access
// reviews) are contributed by the server's feature modules.
import { objectViewStorage, replaceOnlyStorage, resourceStorage } from "./object-storages.js";
import { RestStorageTable, type StorageRegistration } from "./storage-table.js";

/** The built-in storages and, after them, those the feature modules contribute. */
export function builtinStorages(contributed: readonly StorageRegistration[]): RestStorageTable {
  const table = new RestStorageTable(resourceStorage)
    .registerForAnyType("status", objectViewStorage)
    .register("", "namespaces", "finalize", replaceOnlyStorage)
    .register("certificates.k8s.io", "certificatesigningrequests", "approval", objectViewStorage)
    .register("", "pods", "ephemeralcontainers", objectViewStorage);
  for (const r of contributed) table.add(r);
  return table;
}
