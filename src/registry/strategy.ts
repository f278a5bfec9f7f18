// Per-type behaviour the generic store asks for (upstream: RESTCreateStrategy and friends).
// A type module supplies only what differs from the defaults.
import type { CelTimings } from "../cel/timings.js";
import type { FieldError } from "../apimachinery/validation.js";
import type { UserInfo } from "../apimachinery/user.js";
import type { KObject } from "../apimachinery/object.js";
import type { Claims } from "./claims.js";
import { defaultSubresourceWrites, type SubresourceWrite } from "./subresource-writes.js";

export type NameRule = "subdomain" | "label" | "dns1035" | "path-segment";

export interface StrategyContext {
  namespace: string;
  /** The subresource being written ("" for the main resource). */
  subresource: string;
  /** --service-cluster-ip-range (default 10.0.0.0/24). */
  serviceClusterIPRange?: string;
  /** --service-node-port-range (default 30000-32767). */
  serviceNodePortRange?: string;
  /** --event-ttl in seconds (0: events are kept). */
  eventTtlSeconds?: number;
  /**
   * The request's Warning header entries: strategies add non-fatal findings here (custom
   * resources: ratcheted CEL rule failures). Absent for the server's own writes.
   */
  warnings?: string[];
  /**
   * Who asked (absent for the server's own writes): types that record their requester
   * (CertificateSigningRequest's spec.username and friends) take it from here, never from the body.
   */
  user?: UserInfo;
  /** Told how long CEL work took (the server's StoreConfig.celTimings). */
  celTimings?: CelTimings;
}

export interface Strategy {
  /** How metadata.name is validated (upstream per type). */
  nameRule: NameRule;
  /** PUT of a missing object creates it. */
  allowCreateOnUpdate: boolean;
  /** PUT without metadata.resourceVersion is allowed (no precondition). */
  allowUnconditionalUpdate: boolean;
  /** metadata.generation is kept (1 on create, +1 when anything outside metadata/status changes). */
  tracksGeneration: boolean;
  /** Drop a client-sent status on create (types with a status subresource). */
  resetStatusOnCreate: boolean;
  /** DELETE answers the deleted object instead of a Status. */
  returnDeletedObject: boolean;
  /**
   * Fill unset fields with their defaults (upstream applies them while decoding): runs on every
   * written body before mutating admission, so admission sees the defaulted object.
   */
  default(obj: KObject): void;
  /** Server-owned fields on create (initial status, generated fields), after mutating admission. */
  prepareForCreate(obj: KObject, ctx: StrategyContext): void;
  /** Same on update; `old` is the stored object. */
  prepareForUpdate(obj: KObject, old: KObject, ctx: StrategyContext): void;
  /**
   * The type's own finalization still holds an object whose deletion was requested (namespaces:
   * spec.finalizers), beyond metadata.finalizers: it is neither removed at once on DELETE nor
   * when an update empties metadata.finalizers.
   */
  pendingFinalization(obj: KObject): boolean;
  /** Marks an object whose deletion was just requested (namespaces: phase Terminating). */
  prepareForDelete(obj: KObject): void;
  validate(obj: KObject, ctx: StrategyContext): FieldError[];
  validateUpdate(obj: KObject, old: KObject, ctx: StrategyContext): FieldError[];
  /** Field values field selectors can use, beyond metadata.name / metadata.namespace. */
  selectableFields(obj: KObject): Record<string, string>;
  /**
   * How long an object lasts after each write of it, in seconds (upstream's TTLFunc: Events,
   * --event-ttl); absent or 0: until deleted. Storage deletes it when the time has passed.
   */
  ttlSeconds?(ctx: StrategyContext): number | undefined;
  /**
   * Types that take values from a shared pool (Service cluster IPs, node ports): called after
   * mutating admission, before prepareForCreate / prepareForUpdate, under a short per-type lock.
   * `others` lists every stored object of the type plus the objects of writes in flight that
   * reserved values and are not stored yet (reserve, then commit: the lock is not held across
   * validating admission or the write). Each value taken is also claimed through `claims`
   * (absent on a dry run), as other servers over the storage do not share the lock. Returns
   * allocation errors (422 Invalid).
   */
  /**
   * The subresources that are views of the stored object, each with what a write through it
   * takes (default: status only). A subresource not listed writes like the object itself, with
   * the strategy seeing it in StrategyContext.subresource (a namespace's finalize, scale).
   */
  subresourceWrites: Readonly<Record<string, SubresourceWrite>>;
  allocate?(obj: KObject, old: KObject | undefined, ctx: StrategyContext, others: () => Promise<KObject[]>, claims?: Claims): Promise<FieldError[]>;
  /** The values a removed object held are given back (its claims in storage, ./claims.ts). */
  released?(obj: KObject, claims: Claims): Promise<void>;
}

export const defaultStrategy: Strategy = {
  nameRule: "subdomain",
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  tracksGeneration: false,
  returnDeletedObject: false,
  resetStatusOnCreate: true,
  default() {},
  prepareForCreate() {},
  prepareForUpdate() {},
  pendingFinalization: () => false,
  prepareForDelete() {},
  validate: () => [],
  validateUpdate: () => [],
  selectableFields: () => ({}),
  subresourceWrites: defaultSubresourceWrites,
};

export function strategy(overrides: Partial<Strategy>): Strategy {
  return { ...defaultStrategy, ...overrides };
}
