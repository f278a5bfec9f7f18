// Quota scopes: what a quota's spec.scopes and spec.scopeSelector ask of an object (upstream:
// getScopeSelectorsFromQuota and ScopedResourceSelectorRequirementsAsSelector). A scope in
// spec.scopes is the requirement "<scope> Exists"; an evaluator decides what each scope means for
// its objects (pods: Terminating, BestEffort, PriorityClass, …; PVCs: VolumeAttributesClass).
import type { KObject } from "../apimachinery/object.js";

export interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values?: string[];
}

export const scopeNames = [
  "Terminating",
  "NotTerminating",
  "BestEffort",
  "NotBestEffort",
  "PriorityClass",
  "CrossNamespacePodAffinity",
  "VolumeAttributesClass",
] as const;

/** Every requirement the quota puts on the objects it counts, spec.scopes first. */
export function scopeSelectorsOf(quota: KObject): ScopeRequirement[] {
  const spec = (quota.spec ?? {}) as { scopes?: unknown; scopeSelector?: { matchExpressions?: unknown } };
  const out: ScopeRequirement[] = [];
  for (const s of Array.isArray(spec.scopes) ? spec.scopes : []) out.push({ scopeName: String(s), operator: "Exists" });
  const exprs = spec.scopeSelector?.matchExpressions;
  for (const e of Array.isArray(exprs) ? exprs : []) {
    const r = (e ?? {}) as Record<string, unknown>;
    out.push({ scopeName: String(r.scopeName ?? ""), operator: String(r.operator ?? ""), values: Array.isArray(r.values) ? r.values.map(String) : undefined });
  }
  return out;
}

/**
 * The requirement as a label selector over `labels` (the scope name as the key: pods give
 * {PriorityClass: <class>}). Throws on an operator that is not one of the four.
 */
export function requirementMatches(req: ScopeRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, req.scopeName);
  const values = req.values ?? [];
  switch (req.operator) {
    case "In":
      return has && values.includes(labels[req.scopeName]!);
    case "NotIn":
      return !has || !values.includes(labels[req.scopeName]!);
    case "Exists":
      return has;
    case "DoesNotExist":
      return !has;
    default:
      throw new Error(`${JSON.stringify(req.operator)} is not a valid scope selector operator`);
  }
}
