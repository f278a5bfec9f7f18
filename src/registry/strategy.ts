// Per-type behaviour the generic store asks for (upstream: RESTCreateStrategy and friends).
// A type module supplies only what differs from the defaults.
import type { FieldError } from "../apimachinery/validation.js";
import type { KObject } from "./object.js";

export type NameRule = "subdomain" | "label" | "dns1035" | "path-segment";

export interface StrategyContext {
  namespace: string;
  /** The subresource being written ("" for the main resource). */
  subresource: string;
  /** --service-cluster-ip-range (default 10.0.0.0/24). */
  serviceClusterIPRange?: string;
  /** --service-node-port-range (default 30000-32767). */
  serviceNodePortRange?: string;
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
  /** Fill defaults and server-owned fields on create. */
  prepareForCreate(obj: KObject, ctx: StrategyContext): void;
  /** Same on update; `old` is the stored object. */
  prepareForUpdate(obj: KObject, old: KObject, ctx: StrategyContext): void;
  validate(obj: KObject, ctx: StrategyContext): FieldError[];
  validateUpdate(obj: KObject, old: KObject, ctx: StrategyContext): FieldError[];
  /** Field values field selectors can use, beyond metadata.name / metadata.namespace. */
  selectableFields(obj: KObject): Record<string, string>;
  /**
   * Types that take values from a shared pool (Service cluster IPs, node ports): called before
   * prepareForCreate / prepareForUpdate under a per-type lock held until the write; `others`
   * lists every stored object of the type. Returns allocation errors (422 Invalid).
   */
  allocate?(obj: KObject, old: KObject | undefined, ctx: StrategyContext, others: () => Promise<KObject[]>): Promise<FieldError[]>;
}

export const defaultStrategy: Strategy = {
  nameRule: "subdomain",
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  tracksGeneration: false,
  returnDeletedObject: false,
  resetStatusOnCreate: true,
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: () => [],
  validateUpdate: () => [],
  selectableFields: () => ({}),
};

export function strategy(overrides: Partial<Strategy>): Strategy {
  return { ...defaultStrategy, ...overrides };
}
