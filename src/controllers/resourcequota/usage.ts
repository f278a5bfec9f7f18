// A quota's usage computed from what is stored (upstream: quota.CalculateUsage with each
// evaluator's UsageStats): every type whose evaluator counts one of the quota's hard resources is
// listed in the namespace, the objects in all of the quota's scopes are summed; resources no
// evaluator counts are left out.
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import { evaluatorFor } from "../../quota/evaluators/registry.js";
import type { Evaluator } from "../../quota/evaluators/evaluator.js";
import { addLists, mask, zeroQuantity, type ResourceList } from "../../quota/resource-list.js";
import { scopeSelectorsOf } from "../../quota/scopes.js";

export interface CountedType {
  type: ResourceType;
  evaluator: Evaluator;
  /** The quota's hard names this type's evaluator counts. */
  names: string[];
}

/** The stored namespaced types that count towards any of `hardNames`. */
export function countedTypes(stored: readonly ResourceType[], hardNames: readonly string[]): CountedType[] {
  const out: CountedType[] = [];
  for (const type of stored) {
    if (!type.namespaced || type.virtual) continue;
    const evaluator = evaluatorFor(type.group, type.resource);
    if (!evaluator) continue;
    const names = evaluator.matchingResources(hardNames);
    if (names.length > 0) out.push({ type, evaluator, names });
  }
  return out;
}

/** The usage of the quota's hard resources by the objects `list` returns for each counted type. */
export async function calculateUsage(
  quota: KObject,
  counted: readonly CountedType[],
  list: (t: ResourceType) => Promise<KObject[]>,
  now: number,
): Promise<ResourceList> {
  const scopes = scopeSelectorsOf(quota);
  let usage: ResourceList = new Map();
  const matched = new Set<string>();
  for (const { type, evaluator, names } of counted) {
    let used: ResourceList = new Map(names.map((n) => [n, zeroQuantity()]));
    for (const obj of await list(type)) {
      if (!scopes.every((s) => evaluator.matchesScope(s, obj))) continue;
      used = addLists(used, evaluator.usage(obj, now));
    }
    usage = addLists(usage, used);
    for (const n of names) matched.add(n);
  }
  return mask(usage, matched);
}
