// managedFields across the /scale subresource. A write through /scale is tracked on the Scale view
// (autoscaling/v1, replica count at .spec.replicas) like any write, and the outcome is carried back
// to the parent object: whoever owns the Scale's .spec.replicas owns the parent's replicas field,
// which moves away from its previous owners (upstream: managedfields.ScaleHandler). Pure functions.
import { FieldSet, fieldElement } from "./fieldpath.js";
import type { Path } from "./fieldpath.js";
import { buildManagerIdentifier, decodeManagedFields, emptyManaged, encodeManagedFields, parseManagerIdentifier } from "./managed-fields.js";
import type { Managed, ManagedFieldsEntry, VersionedSet } from "./managed-fields.js";

/** The apiVersion of the Scale view and of the entries tracked on it. */
export const SCALE_API_VERSION = "autoscaling/v1";

const replicasInScale: Path = [fieldElement("spec"), fieldElement("replicas")];

/**
 * Where the parent keeps its replica count for entries of `apiVersion`: a path; null for a version
 * without a scale subresource (a custom resource may declare it on some versions only); undefined
 * for a version the type does not serve (its entries are left as they are).
 */
export type ReplicasPathOf = (apiVersion: string) => Path | null | undefined;

/** A dot path of a scale declaration (".spec.replicas") as a field path. */
export function replicasFieldPath(dotPath: string): Path {
  return dotPath.split(".").filter((s) => s !== "").map(fieldElement);
}

/**
 * The parent's entries as the Scale view sees them: each manager that owns the parent's replicas
 * field owns the Scale's .spec.replicas (same identifier, kind of operation and time); the other
 * fields and managers are not the Scale's concern.
 */
export function toScaleEntries(parentEntries: readonly unknown[] | undefined, replicasPathOf: ReplicasPathOf): ManagedFieldsEntry[] {
  const parent = decodeManagedFields(parentEntries);
  const scale = emptyManaged();
  for (const [id, vs] of parent.fields) {
    const path = replicasPathOf(vs.apiVersion);
    if (!path || !vs.set.has(path)) continue;
    scale.fields.set(id, { set: FieldSet.of(replicasInScale), apiVersion: SCALE_API_VERSION, applied: vs.applied });
    scale.times.set(id, parent.times.get(id));
  }
  return encodeManagedFields(scale);
}

/**
 * The parent's entries after a write through /scale left the Scale view with `scaleEntries`
 * (derived from the parent by toScaleEntries, then tracked for the write). A parent entry whose
 * identifier still owns the Scale's replicas keeps its fields; any other loses the replicas field
 * (and goes when nothing is left); each remaining owner of the Scale's replicas owns the parent's
 * replicas field in `parentApiVersion`, at the time of its Scale entry.
 */
export function toParentEntries(
  parentEntries: readonly unknown[] | undefined,
  scaleEntries: readonly unknown[],
  replicasPathOf: ReplicasPathOf,
  parentApiVersion: string,
): ManagedFieldsEntry[] {
  const parent = decodeManagedFields(parentEntries);
  const scale = decodeManagedFields(scaleEntries);
  const scaleOwners = new Map(scale.fields);
  const out = emptyManaged();
  const keep = (id: string, vs: VersionedSet, from: Managed) => {
    out.fields.set(id, vs);
    out.times.set(id, from.times.get(id));
  };
  for (const [id, vs] of parent.fields) {
    const path = replicasPathOf(vs.apiVersion);
    if (!path || !vs.set.has(path)) {
      keep(id, vs, parent);
      continue;
    }
    if (scaleOwners.has(id)) {
      keep(id, vs, parent);
      scaleOwners.delete(id);
      continue;
    }
    const rest = vs.set.difference(FieldSet.of(path));
    if (!rest.isEmpty()) keep(id, { ...vs, set: rest }, parent);
  }
  const parentPath = replicasPathOf(parentApiVersion);
  if (!parentPath) return encodeManagedFields(out);
  for (const [scaleId, vs] of scaleOwners) {
    if (!vs.set.has(replicasInScale)) continue;
    // An Update entry's identifier names its apiVersion: the Scale's becomes the parent's, so an
    // entry that kept other parent fields is joined rather than written twice.
    const id = buildManagerIdentifier({ ...parseManagerIdentifier(scaleId), apiVersion: parentApiVersion });
    const joined = out.fields.get(id);
    const set = joined ? joined.set.union(FieldSet.of(parentPath)) : FieldSet.of(parentPath);
    out.fields.set(id, { set, apiVersion: parentApiVersion, applied: vs.applied });
    out.times.set(id, scale.times.get(scaleId) ?? out.times.get(id));
  }
  return encodeManagedFields(out);
}
