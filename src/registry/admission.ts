// The admission seam: every write (create, update, delete, and the connect verbs when they come)
// passes the mutating stage, then the type's validation, then the validating stage. Built-in
// plugins, webhooks and CEL policies are all plugins of one chain.
import type { LatencyTrackers } from "../http/context.js";
import type { UserInfo } from "../apimachinery/user.js";
import type { KObject } from "../apimachinery/object.js";
import type { Level } from "../observability/audit/types.js";
import type { ResourceType } from "./resource-type.js";

export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/**
 * The mutating stage's reinvocation state (upstream: admission.ReinvocationContext). A
 * reinvocable plugin (webhooks, mutating policies) that sees the object changed after one of its
 * IfNeeded hooks ran sets `shouldReinvoke`; the chain then runs the reinvocable plugins once more
 * with `isReinvoke` true. `values` keeps each plugin's own state between the two passes.
 */
export interface ReinvocationContext {
  isReinvoke: boolean;
  shouldReinvoke: boolean;
  readonly values: Map<string, unknown>;
}

/** What a plugin sees of one write (upstream: admission.Attributes). */
export interface AdmissionAttributes {
  operation: AdmissionOperation;
  /** The type written; its group, version, resource and kind (the request's version). */
  type: ResourceType;
  namespace: string;
  /** Empty on a create whose name is still to be generated. */
  name: string;
  /** "" for the object itself, else "status", "scale", "finalize", … */
  subresource: string;
  /** The new object (create, update): mutating plugins edit it in place or replace it. Absent on delete. */
  object?: KObject;
  /** The stored object (update, delete). Shared: never edit it. */
  oldObject?: KObject;
  dryRun: boolean;
  /** Who asked (absent for the server's own writes: controllers, bootstrap). */
  user?: UserInfo;
  /** Aborts when the request's deadline passes or its client goes away. */
  signal?: AbortSignal;
  /**
   * The write's options as an AdmissionReview carries them: meta.k8s.io/v1 CreateOptions,
   * UpdateOptions (PUT, PATCH, apply of an existing object) or DeleteOptions; null for CONNECT.
   */
  readonly options: KObject | null;
  /** The request's Warning header entries: plugins append (webhook and policy warnings). */
  readonly warnings: string[];
  /**
   * Adds an annotation to the request's audit event (upstream: Attributes.AddAnnotationWithLevel),
   * recorded when the request is audited at `level` (Metadata by default) or above; a key keeps
   * its first value.
   */
  annotate(key: string, value: string, level?: Level): void;
  /** The mutating stage's reinvocation state (shared by both passes). */
  readonly reinvocation: ReinvocationContext;
  /** Where webhook time is added up for the request's latency SLI (absent for the server's own writes). */
  readonly latency?: LatencyTrackers;
}

/**
 * One admission plugin. `admit` may change `attributes.object`; `validate` may only accept or
 * reject. Either throws an ApiError to reject the write.
 */
export interface AdmissionPlugin {
  readonly name: string;
  /** Which operations the plugin looks at (all when absent). */
  readonly operations?: readonly AdmissionOperation[];
  /**
   * Which group-resources the plugin looks at (all when absent): the chain does not call it for
   * writes of any other (a server's own writes at start pass only the plugins that care).
   */
  readonly resources?: readonly AdmittedResource[];
  /** Runs again, once, when a later mutation asks for reinvocation (webhooks, mutating policies). */
  readonly reinvocable?: boolean;
  admit?(attributes: AdmissionAttributes): void | Promise<void>;
  validate?(attributes: AdmissionAttributes): void | Promise<void>;
  /** Stops what the plugin started (informers, timers) when the server stops. */
  stop?(): void;
}

/** A group-resource a plugin looks at ("" for the core group). */
export interface AdmittedResource {
  readonly group: string;
  readonly resource: string;
}

/** The two stages as the write path calls them. */
export interface Admission {
  admit(attributes: AdmissionAttributes): Promise<void>;
  validate(attributes: AdmissionAttributes): Promise<void>;
}
