// The version each built-in group-resource is persisted in (discovery hashes it into
// storageVersionHash): the version kube-apiserver 1.34 stores, which is not always the served or
// preferred one.
import type { GroupVersionKind } from "../apimachinery/schema.js";
import { findBuiltinResource, type ResourceFacts } from "./builtin-resources.js";
import { groupVersionPriority } from "./resource-names.js";

export type StorageGVK = GroupVersionKind;

/**
 * Resources whose REST storage persists nothing (reviews answered on POST, pods/binding's
 * parent "bindings", componentstatuses computed on read): upstream reports no hash for them.
 */
const unstored = new Set([
  "/bindings",
  "/componentstatuses",
  "authentication.k8s.io/tokenreviews",
  "authentication.k8s.io/selfsubjectreviews",
  "authorization.k8s.io/subjectaccessreviews",
  "authorization.k8s.io/selfsubjectaccessreviews",
  "authorization.k8s.io/selfsubjectrulesreviews",
  "authorization.k8s.io/localsubjectaccessreviews",
]);

/**
 * Kinds whose newest version first appeared in 1.34: kube-apiserver 1.34 keeps storing them in
 * the version a 1.33 server can read (n-1 rollback safety of the storage version), so the hash
 * names that older version.
 */
const rollbackSafeStorage: Readonly<Record<string, string>> = {
  "resource.k8s.io/DeviceClass": "v1beta2",
  "resource.k8s.io/ResourceClaim": "v1beta2",
  "resource.k8s.io/ResourceClaimTemplate": "v1beta2",
  "resource.k8s.io/ResourceSlice": "v1beta2",
  "storage.k8s.io/VolumeAttributesClass": "v1beta1",
};

/** Group-resources stored in another group's table (upstream "cohabitating" resources). */
const cohabitating: Readonly<Record<string, StorageGVK>> = {
  "events.k8s.io/events": { group: "", version: "v1", kind: "Event" },
};

/** The group-version-kind a resource is persisted as, or undefined when nothing is stored. */
export function storageGVK(f: ResourceFacts): StorageGVK | undefined {
  const gr = `${f.group}/${f.resource}`;
  if (unstored.has(gr)) return undefined;
  const moved = cohabitating[gr];
  if (moved) return moved;
  const pinned = rollbackSafeStorage[`${f.group}/${f.kind}`];
  if (pinned) return { group: f.group, version: pinned, kind: f.kind };
  // Otherwise the highest-priority version of the group that has this resource, enabled or not
  // (storage versions need not be served).
  const versions = groupVersionPriority[f.group] ?? [f.version];
  for (const v of versions) {
    const r = findBuiltinResource(f.group, v, f.resource);
    if (r) return { group: f.group, version: v, kind: r.kind };
  }
  return { group: f.group, version: f.version, kind: f.kind };
}
