// What a caller tells the store about one write besides the object: the request it is made for,
// the write's own options, and — for the few writes that must — which stages it leaves out, said
// explicitly and typed so each use can be found.
import type { LatencyTrackers } from "../http/context.js";
import type { UserInfo } from "../apimachinery/user.js";
import type { KObject } from "../apimachinery/object.js";
import type { Level } from "../observability/audit/types.js";

/**
 * The request a write is made for (upstream: the request context a store's methods receive):
 * who asks, its cancellation, and the Warning header and audit annotation slots that strategies
 * and admission plugins add to. Every write of one request (a deletecollection's deletes, an
 * eviction's delete) adds to the same slots; the store never keeps or changes it. Made from the
 * request by the handlers (handlers/write-options.ts); absent for the server's own writes.
 */
export interface WriteRequest {
  readonly user?: UserInfo;
  /** The request's deadline and cancellation. */
  readonly signal?: AbortSignal;
  /**
   * Why the request ended already (its deadline passed and it was answered 504, or the client went
   * away), else undefined. Asked right before each storage write: a write is made whole while its
   * request is wanted, or not at all (upstream's etcd calls fail on a cancelled context).
   */
  cancelReason?(): unknown;
  /** The request's Warning header entries. */
  readonly warnings: string[];
  /** Adds an audit annotation to the request's event (RequestContext.annotate). */
  annotate(key: string, value: string, level?: Level): void;
  /** Where the request adds up time its latency SLI leaves out (webhook calls). */
  readonly latency?: LatencyTrackers;
}

/**
 * Stages a write leaves out because it is the effect of another request that was admitted
 * already (upstream's subresource storages pass rest.ValidateAllObjectFunc for these):
 * - `admission`: no admission of its own (the pod deleted by pods/eviction; the pod bound by
 *   pods/binding);
 * - `typeRules` (only with `admission`): the type's defaults, preparation, validation, field
 *   ownership and resourceVersion precondition are not applied either: the update stores what
 *   `desired` returns, retried on a lost race (pods/binding sets spec.nodeName, which an update
 *   of a pod may never change). Only update takes it.
 */
export interface SkippedStages {
  admission: true;
  typeRules?: true;
}

/**
 * A create on a subresource whose storage acts on an object of its own kind (pods/binding,
 * pods/eviction, serviceaccounts/token) instead of storing one through the store: the object is
 * admitted as a create of `<resource>/<subresource>` on the object `name`, `validate` runs
 * between the mutating and the validating stage (as a type's validation does), and the admitted
 * object is returned; nothing is stored.
 */
export interface SubresourceCreate {
  subresource: string;
  /** The object the subresource belongs to (the URL's name). */
  name: string;
  validate?(admitted: KObject): void | Promise<void>;
}

export interface WriteOptions {
  dryRun: boolean;
  /** The field manager of this write; its managedFields entry is updated (none: untracked). */
  fieldManager?: string;
  /** The object's managedFields were already computed (server-side apply). */
  ownershipRecorded?: boolean;
  /**
   * Store the object without managedFields, none recorded for this write either: the retry of a
   * write storage refused as too large (handlers/too-large-retry.ts).
   */
  withoutManagedFields?: true;
  /** The request this write is made for (absent for the server's own writes: controllers, bootstrap). */
  request?: WriteRequest;
  /** Stages this write leaves out (see SkippedStages); absent for every client write. */
  skip?: SkippedStages;
}
