// The audit.k8s.io/v1 vocabulary kapi records in: levels, stages, the policy a file declares,
// what the policy decides for one request, and the event's parts (field names as upstream's
// JSON). Pure types and the level order; no I/O.

export type Level = "None" | "Metadata" | "Request" | "RequestResponse";
export type Stage = "RequestReceived" | "ResponseStarted" | "ResponseComplete" | "Panic";

/** In upstream's order, each recording more than the one before. */
export const levels: readonly Level[] = ["None", "Metadata", "Request", "RequestResponse"];
export const stages: readonly Stage[] = ["RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"];

const rank: Record<Level, number> = { None: 0, Metadata: 1, Request: 2, RequestResponse: 3 };

/** Whether `level` records at least what `min` does. */
export function atLeast(level: Level, min: Level): boolean {
  return rank[level] >= rank[min];
}

export interface GroupResources {
  group?: string;
  /** "pods", "pods/log", "*", "*\/status", "pods/*". */
  resources?: string[];
  resourceNames?: string[];
}

export interface PolicyRule {
  level: Level;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  /** Exact paths, "*", or a prefix ending in "*". */
  nonResourceURLs?: string[];
  omitStages?: Stage[];
  /** Absent: the policy's own setting. */
  omitManagedFields?: boolean;
}

export interface Policy {
  rules: PolicyRule[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

/** What the policy decides for one request (upstream: RequestAuditConfig). */
export interface RequestAuditConfig {
  level: Level;
  omitStages: readonly Stage[];
  omitManagedFields: boolean;
}

/** Who asks, as a policy rule matches it (absent: the request was not authenticated). */
export interface PolicyUser {
  name: string;
  groups: readonly string[];
}

/** What a policy rule is matched against besides the user (the request's authorization attributes). */
export interface PolicyAttributes {
  verb: string;
  isResourceRequest: boolean;
  path: string;
  namespace: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  name: string;
}

/** authentication.k8s.io/v1 UserInfo as the event carries it. */
export interface EventUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** The bounded fields of the metav1.Status an event keeps (upstream copies only these). */
export interface ResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code: number;
}
