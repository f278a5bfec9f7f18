import type { UserInfo } from "../apimachinery/user.js";

/** A selector of a list/watch/deletecollection, as AuthorizeWithSelectors passes it along. */
export interface SelectorAttributes<R> {
  /** As the request wrote it. */
  raw: string;
  /** Parsed; absent when it did not parse (then `error` says why). */
  requirements?: R[];
  error?: string;
}

export interface Attributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  namespace: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
  /** With AuthorizeWithSelectors: the request's field selector (list, watch, deletecollection). */
  fieldSelector?: SelectorAttributes<import("../apimachinery/fields.js").FieldRequirement>;
  /** With AuthorizeWithSelectors: the request's label selector. */
  labelSelector?: SelectorAttributes<import("../apimachinery/labels.js").LabelRequirement>;
}

export type Decision = "allow" | "deny" | "no-opinion";

export interface AuthzResult {
  decision: Decision;
  reason: string;
  /** An evaluation error (a webhook that failed, a rule that could not be resolved); reported in access reviews. */
  error?: string;
  /**
   * Set by the union on its default deny, when every authorizer had no opinion (upstream's union
   * then answers NoOpinion): access reviews report `denied` only for an authorizer's real Deny.
   */
  defaultDeny?: boolean;
}

export interface Authorizer extends Partial<RuleResolver> {
  authorize(a: Attributes): AuthzResult | Promise<AuthzResult>;
}

export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface RulesResult {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  incomplete: boolean;
  evaluationError?: string;
}

/** What a user may do in a namespace (SelfSubjectRulesReview). */
export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): RulesResult | Promise<RulesResult>;
}
