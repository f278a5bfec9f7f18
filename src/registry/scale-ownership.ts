// Field ownership of a write through /scale: the Scale view of the stored object carries the
// entries of whoever owns its replica count; the write is tracked on that view (an update, or an
// apply with its conflicts) and the outcome moves back into the object's managedFields, so the
// writer owns the object's replicas field from then on (src/apply/scale-ownership.ts).
import { applyPatch, recordUpdate, replicasFieldPath, SCALE_API_VERSION, toParentEntries, toScaleEntries } from "../apply/index.js";
import type { ManagedFieldsEntry, ReplicasPathOf } from "../apply/index.js";
import { nowTimestamp, type KObject } from "../apimachinery/object.js";
import type { ResourceType } from "./resource-type.js";

/** How a request changes the Scale: the Scale it wants (PUT, patches), or a configuration to apply. */
export type ScaleChange = { readonly scale: KObject } | { readonly apply: KObject; readonly force: boolean };

export interface TrackedScale {
  /** The Scale the change makes. */
  scale: KObject;
  /** The stored object's managedFields after the change (undefined: none). */
  managedFields: ManagedFieldsEntry[] | undefined;
}

/** Where each served version of a group-resource keeps its replica count (`versions`: every served version of it). */
export function replicasPaths(versions: readonly ResourceType[]): ReplicasPathOf {
  const byApiVersion = new Map(versions.map((v) => [v.apiVersion, v.scale ? replicasFieldPath(v.scale.specReplicasPath) : null]));
  return (apiVersion) => byApiVersion.get(apiVersion);
}

/**
 * Tracks `change`, made by `manager` to `scale` (the Scale view of `stored`, an object of type
 * `t`), and returns the resulting Scale with the object's managedFields after it. Throws what the
 * apply engine throws (ApplyConflictError without force, ManagedFieldsError for unreadable entries).
 */
export function trackScaleChange(t: ResourceType, replicasPathOf: ReplicasPathOf, stored: KObject, scale: KObject, change: ScaleChange, manager: string): TrackedScale {
  const scaleEntries = toScaleEntries(stored.metadata.managedFields, replicasPathOf);
  const opts = {
    apiVersion: SCALE_API_VERSION,
    now: nowTimestamp(),
    schema: t.schema.definition,
    rootRef: t.schema.nameOf("autoscaling", "v1", "Scale"),
    subresource: "scale",
  };
  const result = "apply" in change
    ? applyPatch(scale, change.apply, manager, scaleEntries, { ...opts, force: change.force })
    : recordUpdate(scale, change.scale, manager, scaleEntries, opts);
  const { managedFields: _tracked, ...metadata } = result.object.metadata as KObject["metadata"];
  const entries = toParentEntries(stored.metadata.managedFields, result.managedFields, replicasPathOf, t.apiVersion);
  return { scale: { ...(result.object as KObject), metadata }, managedFields: entries.length > 0 ? entries : undefined };
}
