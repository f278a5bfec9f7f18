// What quota knows of one group-resource (upstream: quota.Evaluator): which requests change its
// usage, which quota resource names it counts, how an object matches a quota's scopes, and the
// usage of one object.
import type { AdmissionOperation } from "../../registry/admission.js";
import type { KObject } from "../../apimachinery/object.js";
import { scopeSelectorsOf, type ScopeRequirement } from "../scopes.js";
import type { ResourceList } from "../resource-list.js";

/** The parts of a request an evaluator decides on. */
export interface EvaluatedRequest {
  operation: AdmissionOperation;
  subresource: string;
  object?: KObject;
  oldObject?: KObject;
}

export interface Evaluator {
  readonly group: string;
  readonly resource: string;
  /** Whether the request can change usage at all. */
  handles(r: EvaluatedRequest): boolean;
  /** The names among `names` this evaluator counts. */
  matchingResources(names: readonly string[]): string[];
  /** Whether the object satisfies one scope requirement (false for scopes the type does not know). */
  matchesScope(req: ScopeRequirement, obj: KObject): boolean;
  /** Why the object cannot be admitted under quotas limiting `required` (pods: missing limits), or undefined. */
  constraints(required: readonly string[], obj: KObject): string | undefined;
  /** The object's usage. `now` in ms (pods stuck terminating past their grace period stop counting). */
  usage(obj: KObject, now: number): ResourceList;
}

/** The object count quota name of a group-resource: count/<resource>[.<group>]. */
export function objectCountName(group: string, resource: string): string {
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

/** generic.Matches: the quota limits something this evaluator counts, and the object is in every scope. */
export function quotaMatches(e: Evaluator, quota: KObject, obj: KObject): boolean {
  const hard = Object.keys(((quota.status ?? {}) as { hard?: Record<string, unknown> }).hard ?? {});
  if (e.matchingResources(hard).length === 0) return false;
  return scopeSelectorsOf(quota).every((s) => e.matchesScope(s, obj));
}

/** The scope requirements among `reqs` the object satisfies (evaluator.MatchingScopes). */
export function matchingScopes(e: Evaluator, obj: KObject, reqs: readonly ScopeRequirement[]): ScopeRequirement[] {
  return reqs.filter((r) => e.matchesScope(r, obj));
}

export const intersection = (names: readonly string[], known: readonly string[]) => names.filter((n) => known.includes(n));
