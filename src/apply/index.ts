// Facade of the server-side apply engine: pure functions, no I/O. The HTTP
// layer decodes the request, calls applyPatch (apply-patch content types) or
// recordUpdate (POST, PUT, other PATCH types) and stores `result.object`.

import { FieldSet, fieldElement } from "./fieldpath.js";
import { apply, update } from "./merge.js";
import type { ApplyOptions, FieldManagerResult, UpdateOptions } from "./merge.js";
import type { ManagedFieldsEntry } from "./managed-fields.js";
import type { SchemaResolver } from "./schema.js";

export { ApplyBadRequestError, ApplyConflictError } from "./merge.js";
export type { ApplyConflict, ApplyConflictCause, ApplyOptions, FieldManagerOptions, FieldManagerResult, UpdateOptions } from "./merge.js";
export { FieldSet, FieldsV1Error, fieldElement, keyElement, valueElement, indexElement, pathString } from "./fieldpath.js";
export type { FieldsV1, Path, PathElement } from "./fieldpath.js";
export {
  ManagedFieldsError,
  decodeManagedFields,
  encodeManagedFields,
  isResetManagedFields,
  managerName,
  prefixFromUserAgent,
  validateFieldManager,
  validateManagedFields,
  FIELD_MANAGER_MAX_LENGTH,
} from "./managed-fields.js";
export type { FieldError, ManagedFieldsEntry } from "./managed-fields.js";
export type { SchemaResolver } from "./schema.js";
export { SCALE_API_VERSION, replicasFieldPath, toParentEntries, toScaleEntries } from "./scale-ownership.js";
export type { ReplicasPathOf } from "./scale-ownership.js";
export { TypedValueError } from "./typed.js";

/**
 * Server-side apply (`application/apply-patch+yaml`): merges `config` into
 * `live` (undefined → create) for `manager` and returns the object to store,
 * with `metadata.managedFields` set, plus the entries.
 *
 * - Fields in `config` take its values; lists merge per list type (atomic:
 *   replaced; set: union by value; map: merged by key fields); maps per map
 *   type (atomic: replaced; granular: merged by key).
 * - A field owned by another manager with a different value → throws
 *   ApplyConflictError (409, one cause per field and manager) unless
 *   `opts.force`, which moves ownership to `manager`. Equal values become
 *   shared.
 * - Fields this manager applied before and omits now are removed when no
 *   other manager owns them, otherwise only its ownership is dropped.
 * - Throws ApplyBadRequestError (400) when `config.metadata.managedFields` is
 *   present or `config.apiVersion` differs from `opts.apiVersion`,
 *   TypedValueError for configurations that cannot be merged (duplicate
 *   list-map keys), ManagedFieldsError when the live entries cannot be read.
 *
 * @param live the stored object, or undefined when it does not exist
 * @param config the decoded apply body
 * @param manager the `fieldManager` query parameter (required by the HTTP layer; "" is recorded as "unknown")
 * @param managedFields the stored entries; undefined → `live.metadata.managedFields`
 */
export function applyPatch(
  live: object | undefined,
  config: object,
  manager: string,
  managedFields: readonly ManagedFieldsEntry[] | undefined,
  opts: ApplyOptions,
): FieldManagerResult {
  return apply(live, config, manager, managedFields, opts);
}

/**
 * Ownership bookkeeping of an ordinary write (POST, PUT, JSON/merge/strategic
 * PATCH): the "Update" entry of `manager` (see managerName) gains the fields
 * the write adds or changes, other managers lose them and any removed field;
 * never conflicts. `newObj.metadata.managedFields` of `[{}]` resets the
 * entries first (then the writer owns what it changed); `[]` or an
 * undecodable list keeps the stored entries; a valid list replaces them.
 * Existing objects without entries stay untracked (upstream). Returns the
 * object to store with `metadata.managedFields` set (or removed when empty).
 *
 * @param oldObj the stored object, or undefined for a create
 * @param newObj the object about to be stored (after patching/defaulting)
 * @param manager the manager name (fieldManager, else the User-Agent prefix)
 * @param managedFields the stored entries; undefined → `oldObj.metadata.managedFields`
 */
export function recordUpdate(
  oldObj: object | undefined,
  newObj: object,
  manager: string,
  managedFields: readonly ManagedFieldsEntry[] | undefined,
  opts: UpdateOptions,
): FieldManagerResult {
  return update(oldObj, newObj, manager, managedFields, opts);
}

/**
 * A FieldSet of top-level fields (and everything below them), e.g.
 * `topLevelFields("status")` for `opts.ignoredFields` of main-resource writes
 * of types whose strategy resets status.
 */
export function topLevelFields(...names: string[]): FieldSet {
  return FieldSet.of(...names.map((n) => [fieldElement(n)]));
}
