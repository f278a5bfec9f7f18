// The admission seam: every write (create, update, delete, and the connect verbs when they come)
// passes the mutating stage, then the type's validation, then the validating stage. Built-in
// plugins, webhooks and CEL policies are all plugins of one chain.
import type { UserInfo } from "../authn/user.js";
import type { KObject } from "../registry/object.js";
import type { ResourceType } from "../registry/resource-type.js";

export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** What a plugin sees of one write (upstream: admission.Attributes). */
export interface AdmissionAttributes {
  operation: AdmissionOperation;
  /** The type written; its group, version, resource and kind. */
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
}

/**
 * One admission plugin. `admit` may change `attributes.object`; `validate` may only accept or
 * reject. Either throws an ApiError to reject the write.
 */
export interface AdmissionPlugin {
  readonly name: string;
  /** Which operations the plugin looks at (all when absent). */
  readonly operations?: readonly AdmissionOperation[];
  admit?(attributes: AdmissionAttributes): void | Promise<void>;
  validate?(attributes: AdmissionAttributes): void | Promise<void>;
}

/** The two stages as the write path calls them. */
export interface Admission {
  admit(attributes: AdmissionAttributes): Promise<void>;
  validate(attributes: AdmissionAttributes): Promise<void>;
}
