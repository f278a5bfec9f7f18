// The policy checker (upstream: audit/policy.NewPolicyRuleEvaluator): the first rule that
// matches a request decides its level, stages left out and whether managedFields are dropped; no
// rule matching means None. A rule's omitStages add to the policy's own.
import type { Policy, PolicyAttributes, PolicyRule, PolicyUser, RequestAuditConfig, Stage } from "./types.js";

export class PolicyEvaluator {
  private readonly rules: readonly { rule: PolicyRule; config: RequestAuditConfig }[];
  private readonly fallback: RequestAuditConfig;

  constructor(policy: Policy) {
    const policyOmits = policy.omitStages ?? [];
    const managed = policy.omitManagedFields ?? false;
    this.rules = policy.rules.map((rule) => ({
      rule,
      config: { level: rule.level, omitStages: union(policyOmits, rule.omitStages ?? []), omitManagedFields: rule.omitManagedFields ?? managed },
    }));
    this.fallback = { level: "None", omitStages: policyOmits, omitManagedFields: managed };
  }

  evaluate(user: PolicyUser | undefined, attrs: PolicyAttributes): RequestAuditConfig {
    for (const r of this.rules) if (ruleMatches(r.rule, user, attrs)) return r.config;
    return this.fallback;
  }
}

function union(a: readonly Stage[], b: readonly Stage[]): Stage[] {
  return [...new Set([...a, ...b])];
}

export function ruleMatches(r: PolicyRule, user: PolicyUser | undefined, attrs: PolicyAttributes): boolean {
  if (r.users?.length && (!user || !r.users.includes(user.name))) return false;
  if (r.userGroups?.length && (!user || !user.groups.some((g) => r.userGroups!.includes(g)))) return false;
  if (r.verbs?.length && !r.verbs.includes(attrs.verb)) return false;
  if (r.namespaces?.length || r.resources?.length) return matchesResource(r, attrs);
  if (r.nonResourceURLs?.length) return matchesNonResource(r.nonResourceURLs, attrs);
  return true;
}

function matchesNonResource(specs: readonly string[], attrs: PolicyAttributes): boolean {
  if (attrs.isResourceRequest) return false;
  return specs.some((spec) => pathMatches(attrs.path, spec));
}

/** "*", the exact path, or a prefix ending in "*" (every trailing "*" trimmed). */
function pathMatches(path: string, spec: string): boolean {
  if (spec === "*" || spec === path) return true;
  return spec.endsWith("*") && path.startsWith(spec.replace(/\*+$/, ""));
}

function matchesResource(r: PolicyRule, attrs: PolicyAttributes): boolean {
  if (!attrs.isResourceRequest) return false;
  // Cluster-scoped resources have the empty namespace.
  if (r.namespaces?.length && !r.namespaces.includes(attrs.namespace)) return false;
  if (!r.resources?.length) return true;
  const { resource, subresource, name } = attrs;
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const gr of r.resources) {
    if ((gr.group ?? "") !== attrs.apiGroup) continue;
    if (!gr.resources?.length) return true;
    if (gr.resourceNames?.length && !gr.resourceNames.includes(name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === "*") return true;
      if (subresource && res.startsWith("*/") && res.slice(2) === subresource) return true;
      if (res.endsWith("/*") && res.slice(0, -2) === resource) return true;
    }
  }
  return false;
}
