// Rule matching of admission webhooks and policies (upstream: webhook/predicates/rules): a
// request matches a rule when its operation, group, version, resource/subresource and scope are
// all among the rule's. Pure: the request is described by plain values, so an equivalent
// resource (matchPolicy Equivalent) is matched by passing another group/version/resource.
import type { AdmissionAttributes, AdmissionOperation } from "../../registry/admission.js";

export type RuleScope = "Cluster" | "Namespaced" | "*";

/** admissionregistration.k8s.io RuleWithOperations. */
export interface RuleWithOperations {
  operations?: (AdmissionOperation | "*")[];
  apiGroups?: string[];
  apiVersions?: string[];
  /** "pods", "pods/status", "pods/*", "*", "*\/status", "*\/*". */
  resources?: string[];
  scope?: RuleScope;
}

/** A policy rule: a RuleWithOperations limited to some object names. */
export interface NamedRuleWithOperations extends RuleWithOperations {
  resourceNames?: string[];
}

/** What a rule is matched against: the request, or the request seen as an equivalent resource. */
export interface RuleRequest {
  operation: AdmissionOperation;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** The request's namespace ("" for cluster-scoped objects and for creating a namespace). */
  namespace: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** The request of admission attributes, optionally as another (equivalent) resource. */
export function ruleRequestOf(a: AdmissionAttributes, as?: GroupVersionResource): RuleRequest {
  const r = as ?? a.type;
  return { operation: a.operation, group: r.group, version: r.version, resource: r.resource, subresource: a.subresource, namespace: requestNamespace(a) };
}

/**
 * The namespace upstream's request info gives a request: for a namespace object itself its own
 * name (the path /api/v1/namespaces/<name> names it), except on create.
 */
export function requestNamespace(a: AdmissionAttributes): string {
  if (a.type.group === "" && a.type.resource === "namespaces") return a.operation === "CREATE" ? "" : a.name;
  return a.namespace;
}

const anyOf = (list: readonly string[] | undefined, value: string) => !!list && (list.includes("*") || list.includes(value));

function splitResource(r: string): [string, string] {
  const i = r.indexOf("/");
  return i < 0 ? [r, ""] : [r.slice(0, i), r.slice(i + 1)];
}

function resourceMatches(resources: readonly string[] | undefined, resource: string, subresource: string): boolean {
  for (const entry of resources ?? []) {
    const [res, sub] = splitResource(entry);
    if ((res === "*" || res === resource) && (sub === "*" || sub === subresource)) return true;
  }
  return false;
}

const isNamespaceResource = (r: RuleRequest) => r.group === "" && r.resource === "namespaces";

function scopeMatches(scope: RuleScope | undefined, r: RuleRequest): boolean {
  switch (scope ?? "*") {
    case "Namespaced":
      // A namespace object is cluster-scoped even though its requests carry its name as namespace.
      return !isNamespaceResource(r) && r.namespace !== "";
    case "Cluster":
      return isNamespaceResource(r) || r.namespace === "";
    default:
      return true;
  }
}

export function matchesRule(rule: RuleWithOperations, r: RuleRequest): boolean {
  return (
    anyOf(rule.operations, r.operation) &&
    anyOf(rule.apiGroups, r.group) &&
    anyOf(rule.apiVersions, r.version) &&
    resourceMatches(rule.resources, r.resource, r.subresource) &&
    scopeMatches(rule.scope, r)
  );
}

const admissionConfigurationResources = new Set([
  "mutatingwebhookconfigurations",
  "validatingwebhookconfigurations",
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicies",
  "mutatingadmissionpolicybindings",
]);

/**
 * Webhooks and policies are never called for their own configuration objects: a broken webhook
 * or policy must stay removable (upstream: IsExemptAdmissionConfigurationResource).
 */
export function isExemptAdmissionConfigurationResource(a: AdmissionAttributes): boolean {
  return a.type.group === "admissionregistration.k8s.io" && admissionConfigurationResources.has(a.type.resource);
}
