// Rule coverage for reconciliation: upstream's Covers (each expected rule broken down into single
// verb/group/resource/name or verb/URL tuples, the uncovered tuples reported), from the RBAC
// module, with a fast path for rules the existing role holds as they are (every start of an
// untouched store).
import { breakdownRule, covers as rbacCovers } from "../rbac/rules.js";
import type { PolicyRule } from "./rules.js";

export { breakdownRule };

const ruleKey = (r: PolicyRule) => JSON.stringify([r.verbs, r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? [], r.nonResourceURLs ?? []]);

/** Whether `owner` covers every rule of `servant`, and the broken-down tuples it does not. */
export function covers(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const held = new Set(owner.map(ruleKey));
  const rest = servant.filter((r) => !held.has(ruleKey(r)));
  return rest.length === 0 ? { covered: true, missing: [] } : rbacCovers(owner, rest);
}
