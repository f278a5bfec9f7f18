// The REST storages of the built-in types (upstream: each API group's storage provider). Every
// stored type gets the generic store's verbs; status is served for every type that declares it
// (custom resources too); the object views and the access reviews belong to one group/resource
// each. The storages that act rather than store (scale, the pod subresources, a service
// account's token) are contributed by the server's feature modules.
import type { AuthnRequest } from "../../authn/authenticator.js";
import type { AuthnOutcome } from "../../authn/union.js";
import type { Authorizer } from "../../authz/authorizer.js";
import { reviewStorages } from "../reviews.js";
import { objectViewStorage, replaceOnlyStorage, resourceStorage } from "./object-storages.js";
import { RestStorageTable, type StorageRegistration } from "./storage-table.js";

export interface BuiltinStorageDeps {
  /** The server's authorizer chain (the access reviews). */
  authorizer: Authorizer;
  /** The server's authenticator union (TokenReview). */
  authenticate: (req: AuthnRequest) => Promise<AuthnOutcome>;
  /** The storages the feature modules contribute (scale, pod subresources, serviceaccounts/token). */
  contributed: readonly StorageRegistration[];
}

export function builtinStorages(deps: BuiltinStorageDeps): RestStorageTable {
  const table = new RestStorageTable(resourceStorage)
    .registerForAnyType("status", objectViewStorage)
    .register("", "namespaces", "finalize", replaceOnlyStorage)
    .register("certificates.k8s.io", "certificatesigningrequests", "approval", objectViewStorage)
    .register("", "pods", "ephemeralcontainers", objectViewStorage);
  for (const r of deps.contributed) table.add(r);
  for (const review of reviewStorages(deps.authorizer, deps.authenticate)) table.register(review.group, review.resource, "", review.storage);
  return table;
}
