// What an update through a subresource that is a view of the stored object takes from the
// written object; everything else stays as stored (upstream: each subresource storage's own
// strategy, e.g. StatusStrategy.PrepareForUpdate). A type's strategy lists its views
// (Strategy.subresourceWrites); the store asks it instead of knowing subresources by name.
import { clone, deepEqual, type KObject } from "../apimachinery/object.js";
import type { Strategy, StrategyContext } from "./strategy.js";

/**
 * The object to store from the written one (`desired`) and the stored one (`current`, shared:
 * not edited), for a type with `strategy`.
 */
export type SubresourceWrite = (desired: KObject, current: KObject, ctx: StrategyContext, strategy: Strategy) => KObject;

/**
 * Only status changes; metadata and spec stay as stored (what /status writes for every type),
 * except managedFields written with it: a server-side apply of the status records its manager's
 * entry there (upstream's ResetObjectMetaForStatus keeps them for that reason).
 */
export const statusOnly: SubresourceWrite = (desired, current, ctx, strategy) => {
  const next = clone(current);
  next.status = desired.status;
  if (desired.status === undefined) delete next.status;
  if (desired.metadata.managedFields !== undefined) next.metadata.managedFields = desired.metadata.managedFields;
  strategy.prepareForUpdate(next, current, ctx);
  return next;
};

/** Every type's views: /status. */
export const defaultSubresourceWrites: Readonly<Record<string, SubresourceWrite>> = { status: statusOnly };

/** The object without metadata, status and type meta: what metadata.generation counts changes of. */
export function withoutMetaAndStatus(o: KObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}

/** metadata.generation after a write that changed `next` from `current`, for types that keep it. */
export function bumpGenerationIfSpecChanged(next: KObject, current: KObject, strategy: Strategy): void {
  if (strategy.tracksGeneration && !deepEqual(withoutMetaAndStatus(next), withoutMetaAndStatus(current))) next.metadata.generation = (current.metadata.generation ?? 0) + 1;
}
