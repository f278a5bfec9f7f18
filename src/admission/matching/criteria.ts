// Whether a webhook or a policy applies to a request, and as which resource (upstream:
// webhook/generic ShouldCallHook and policy/matching Matches). Selectors are checked first and
// only decide "no"; rules then pick the resource — the request's own, or with matchPolicy
// Equivalent another served version of it, whose kind the object is then converted to. A
// namespace selector that needs a missing namespace fails the request only when the rules match.
import type { LabelSelectorObject } from "../../apimachinery/labels.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { TypeRegistry } from "../../registry/type-registry.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import { equivalentTypes, kindFor, type GroupVersionKind } from "./equivalence.js";
import { matchesRule, ruleRequestOf, type NamedRuleWithOperations, type RuleWithOperations } from "./rules.js";
import { matchesNamespaceSelector, matchesObjectSelector, type NamespaceLabels } from "./selectors.js";

export type MatchPolicy = "Exact" | "Equivalent";

/** The matching part of a webhook, or of a policy's matchConstraints / a binding's matchResources. */
export interface MatchCriteria {
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  /** Webhook rules, or a policy's resourceRules (with resourceNames). */
  rules: readonly NamedRuleWithOperations[];
  /** Policies only: requests these match are never matched. */
  excludeRules?: readonly NamedRuleWithOperations[];
  /** Undefined behaves as Exact (the API defaults it to Equivalent). */
  matchPolicy?: MatchPolicy;
}

/** The resource a request matched as: its own type, or an equivalent one (then converted to it). */
export interface MatchedResource {
  type: ResourceType;
  kind: GroupVersionKind;
  /** The request was matched through another version than its own. */
  equivalent: boolean;
}

export interface MatchDeps {
  types: TypeRegistry;
  namespaceLabels: NamespaceLabels;
}

/** admissionregistration MatchResources (policies and bindings). */
export interface MatchResources {
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  resourceRules?: NamedRuleWithOperations[];
  excludeResourceRules?: NamedRuleWithOperations[];
  matchPolicy?: MatchPolicy;
}

export function criteriaOfMatchResources(mr: MatchResources | undefined): MatchCriteria {
  return { namespaceSelector: mr?.namespaceSelector, objectSelector: mr?.objectSelector, rules: mr?.resourceRules ?? [], excludeRules: mr?.excludeResourceRules ?? [], matchPolicy: mr?.matchPolicy };
}

/** Which resource the criteria match the request as; undefined when they do not apply. */
export async function matchRequest(c: MatchCriteria, a: AdmissionAttributes, deps: MatchDeps): Promise<MatchedResource | undefined> {
  let nsError: unknown;
  let nsMatches: boolean;
  try {
    nsMatches = await matchesNamespaceSelector(c.namespaceSelector, a, deps.namespaceLabels);
  } catch (e) {
    nsError = e;
    nsMatches = true;
  }
  if (!nsMatches) return undefined;
  if (!matchesObjectSelector(c.objectSelector, a)) return undefined;
  if (c.excludeRules?.length && matchesRules(c.excludeRules, a, c.matchPolicy, deps.types)) return undefined;
  const matched = matchesRules(c.rules, a, c.matchPolicy, deps.types);
  if (!matched) return undefined;
  if (nsError !== undefined) throw nsError;
  return matched;
}

const nameMatches = (rule: NamedRuleWithOperations, name: string) => !rule.resourceNames?.length || rule.resourceNames.includes(name);

/** The rules' match: exact first (every rule), then — Equivalent only — rule by rule over the equivalent versions. */
function matchesRules(rules: readonly (NamedRuleWithOperations | RuleWithOperations)[], a: AdmissionAttributes, policy: MatchPolicy | undefined, types: TypeRegistry): MatchedResource | undefined {
  const own = ruleRequestOf(a);
  for (const rule of rules) {
    if (matchesRule(rule, own) && nameMatches(rule, a.name)) return { type: a.type, kind: kindFor(a.type, a.subresource), equivalent: false };
  }
  if (policy !== "Equivalent") return undefined;
  const equivalents = equivalentTypes(types, a.type, a.subresource).filter((t) => t.version !== a.type.version || t.group !== a.type.group);
  for (const rule of rules) {
    for (const t of equivalents) {
      if (matchesRule(rule, ruleRequestOf(a, t))) return { type: t, kind: kindFor(t, a.subresource), equivalent: true };
    }
  }
  return undefined;
}
