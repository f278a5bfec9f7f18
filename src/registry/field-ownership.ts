// managedFields bookkeeping for ordinary writes (POST, PUT, non-apply PATCH): the writer's
// "Update" entry gains what it changed. Apply computes its entries itself (src/apply).
import { recordUpdate, topLevelFields } from "../apply/index.js";
import type { FieldManagerOptions } from "../apply/index.js";
import { nowTimestamp, type KObject } from "../apimachinery/object.js";
import type { ResourceType } from "./resource-type.js";

/** Options for the apply engine for a write of this type at this subresource. */
export function ownershipOptions(t: ResourceType, subresource: string): FieldManagerOptions {
  return {
    apiVersion: t.apiVersion,
    now: nowTimestamp(),
    schema: t.schema.definition,
    rootRef: t.schema.nameOf(t.group, t.version, t.kind),
    subresource,
    // Status is not the main resource's to write (nor to own) on types with a status subresource.
    ignoredFields: t.hasStatus && subresource === "" ? topLevelFields("status") : undefined,
  };
}

/**
 * Returns `next` with metadata.managedFields updated for `manager`'s write over `prev`; throws
 * ManagedFieldsError (400) when the entries cannot be read.
 */
export function withUpdateOwnership(t: ResourceType, subresource: string, prev: KObject | undefined, next: KObject, manager: string): KObject {
  return recordUpdate(prev, next, manager, undefined, ownershipOptions(t, subresource)).object as KObject;
}
