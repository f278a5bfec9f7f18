// What a caller tells the store about one write besides the object: who asks, the request's
// signal and warning slots, the admission request it belongs to, and — for the few writes that
// must — which stages it leaves out, said explicitly and typed so each use can be found.
import { randomUUID } from "node:crypto";
import type { UserInfo } from "../apimachinery/user.js";
import type { KObject } from "../apimachinery/object.js";

/**
 * One write's admission request: the UID every admission call of the write shares (one per
 * write, whatever its retries), and the warning and audit slots of writes made without an HTTP
 * request. Made from the request by the handlers (handlers/write-options.ts); the store makes one
 * for its own in-process callers.
 */
export interface AdmissionRequest {
  uid: string;
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

export function newAdmissionRequest(): AdmissionRequest {
  return { uid: randomUUID(), warnings: [], auditAnnotations: {} };
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
  /** Who asked, for admission (absent for the server's own writes). */
  user?: UserInfo;
  /** The request's deadline and cancellation. */
  signal?: AbortSignal;
  /** The request's Warning header entries, which strategies may add to (StrategyContext.warnings). */
  warnings?: string[];
  /** The request's audit annotations, which admission plugins add to. */
  auditAnnotations?: Record<string, string>;
  /** The admission request this write belongs to (absent: the store makes one on first use). */
  admissionRequest?: AdmissionRequest;
  /** Stages this write leaves out (see SkippedStages); absent for every client write. */
  skip?: SkippedStages;
}
