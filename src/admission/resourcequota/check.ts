// One request against the namespace's quotas (upstream: CheckRequest in the resourcequota
// admission controller): which quotas it falls under, the usage it adds (on update, the growth
// over the stored object), and whether every such quota still has room. Returns the quotas with
// status.used as it would be if the request is stored; throws the 403 the client sees when not.
import { ApiError, forbidden } from "../../apimachinery/errors.js";
import { clone, type KObject } from "../../apimachinery/object.js";
import type { GroupResource } from "../../apimachinery/errors.js";
import { matchingScopes, quotaMatches, type EvaluatedRequest, type Evaluator } from "../../quota/evaluators/evaluator.js";
import type { LimitedResource } from "./configuration.js";
import { scopeSelectorsOf, type ScopeRequirement } from "../../quota/scopes.js";
import {
  addLists,
  exceededNames,
  listsEqual,
  mask,
  negativeNames,
  prettyPrint,
  removeZeros,
  resourceListJson,
  resourceListOf,
  subtractNonNegative,
  type ResourceList,
} from "../../quota/resource-list.js";

export interface QuotaRequest extends EvaluatedRequest {
  gr: GroupResource;
  /** The object's name for the 403 (upstream: the name, else the generateName, else "Unknown"). */
  name: string;
}

const hardOf = (q: KObject) => resourceListOf((q.status as { hard?: unknown } | undefined)?.hard);
const usedOf = (q: KObject) => resourceListOf((q.status as { used?: unknown } | undefined)?.used);

function deny(r: QuotaRequest, message: string): ApiError {
  return forbidden(r.gr, r.name, message);
}

/** The usage names the request consumes that a limited resource says need a covering quota (limitedByDefault). */
function limitedNames(usage: ResourceList, limited: readonly LimitedResource[]): string[] {
  const out: string[] = [];
  for (const lr of limited) {
    for (const [k, v] of usage) {
      if (v.value.n > 0n && lr.matchContains.some((m) => k.includes(m))) out.push(k);
    }
  }
  return out;
}

/** Go's %v of a []ScopedResourceSelectorRequirement. */
const goScopes = (reqs: readonly ScopeRequirement[]) => `[${reqs.map((r) => `{${r.scopeName} ${r.operator} [${(r.values ?? []).join(" ")}]}`).join(" ")}]`;

/** An error that is no API status: the client sees it as upstream's handler shows those (500, no reason). */
const plainError = (message: string) => new ApiError(500, "", message);

export function checkRequest(quotas: readonly KObject[], r: QuotaRequest, e: Evaluator, now: number, limited: readonly LimitedResource[] = []): KObject[] {
  if (!e.handles(r) || !r.object) return [...quotas];
  const obj = r.object;
  const scopesOf = (reqs: readonly ScopeRequirement[], what: string) => {
    try {
      return matchingScopes(e, obj, reqs);
    } catch (err) {
      throw plainError(`${what}${(err as Error).message}`);
    }
  };
  // What the configuration keeps for covering quotas: scopes (for any type) and resource names (for this one).
  const limitedScopes = limited.flatMap((lr) => scopesOf(lr.matchScopes, "error matching scopes: "));
  const limitedHere = limited.filter((lr) => lr.apiGroup === r.gr.group && lr.resource === r.gr.resource);
  const mustBeCovered = limitedHere.length > 0 ? limitedNames(e.usage(obj, now), limitedHere) : [];

  const interesting: number[] = [];
  const restricted = new Set<string>();
  const restrictedScopes: ScopeRequirement[] = [];
  for (let i = 0; i < quotas.length; i++) {
    const q = quotas[i]!;
    restrictedScopes.push(...scopesOf(scopeSelectorsOf(q), `error matching scopes of quota ${q.metadata.name}, err: `));
    if (!quotaMatches(e, q, obj)) continue;
    const names = e.matchingResources([...hardOf(q).keys()]);
    const failed = e.constraints(names, obj);
    if (failed) throw deny(r, `failed quota: ${q.metadata.name}: ${failed}`);
    const used = usedOf(q);
    if ([...hardOf(q).keys()].some((k) => names.includes(k) && !used.has(k))) {
      throw deny(r, `status unknown for quota: ${q.metadata.name}, resources: ${[...names].sort().join(",")}`);
    }
    interesting.push(i);
    for (const n of names) restricted.add(n);
  }

  const inputUsage = e.usage(obj, now);
  const negative = negativeNames(inputUsage);
  if (negative.length > 0) throw deny(r, `quota usage is negative for resource(s): ${negative.sort().join(",")}`);

  const delta = new Map<number, ResourceList>(interesting.map((i) => [i, inputUsage]));
  // The usage that decides, when no quota is concerned, whether the request consumes anything at all.
  let deltaWithoutQuota: ResourceList | undefined = r.operation === "CREATE" && interesting.length === 0 ? inputUsage : undefined;
  if (r.operation === "UPDATE") {
    const prev = r.oldObject;
    if (!prev) throw deny(r, "unable to get previous usage since prior version of object was not found");
    if (prev.metadata.resourceVersion) {
      // Only the growth is charged to quotas that already counted the stored object.
      const growth = subtractNonNegative(inputUsage, e.usage(prev, now));
      if (interesting.length === 0) deltaWithoutQuota = growth;
      for (const i of interesting) if (quotaMatches(e, quotas[i]!, prev)) delta.set(i, growth);
    } else if (interesting.length === 0) {
      deltaWithoutQuota = inputUsage;
    }
  }
  for (const [i, d] of delta) {
    const nonZero = removeZeros(d);
    if (nonZero.size === 0) delta.delete(i);
    else delta.set(i, nonZero);
  }
  if (interesting.length > 0 ? delta.size === 0 : removeZeros(deltaWithoutQuota ?? new Map()).size === 0) return [...quotas];

  const uncovered = [...new Set(mustBeCovered)].filter((n) => !restricted.has(n)).sort();
  if (uncovered.length > 0) throw deny(r, `insufficient quota to consume: ${uncovered.join(",")}`);
  const uncoveredScopes = limitedScopes.filter((l) => !restrictedScopes.some((m) => m.scopeName === l.scopeName));
  if (uncoveredScopes.length > 0) throw plainError(`insufficient quota to match these scopes: ${goScopes(uncoveredScopes)}`);
  if (interesting.length === 0) return [...quotas];

  const out = quotas.map((q) => q);
  for (const i of interesting) {
    const d = delta.get(i);
    if (!d) continue;
    const q = quotas[i]!;
    const hard = hardOf(q);
    const used = usedOf(q);
    const requested = mask(d, hard.keys());
    const newUsed = addLists(used, requested);
    // A status write (a claim's allocated size) is charged as it happened, never refused.
    if (r.subresource !== "status") {
      const over = exceededNames(mask(newUsed, requested.keys()), hard);
      if (over.length > 0) {
        throw deny(
          r,
          `exceeded quota: ${q.metadata.name}, requested: ${prettyPrint(mask(requested, over))}, used: ${prettyPrint(mask(used, over))}, limited: ${prettyPrint(mask(hard, over))}`,
        );
      }
    }
    if (listsEqual(newUsed, used)) continue;
    const next = clone(q);
    next.status = { ...(next.status as object), used: resourceListJson(newUsed) };
    out[i] = next;
  }
  return out;
}

/** Whether checkRequest changed any quota's usage (the ones to write). */
export function changedQuotas(before: readonly KObject[], after: readonly KObject[]): KObject[] {
  return after.filter((q, i) => q !== before[i]);
}
