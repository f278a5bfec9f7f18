// One request against the namespace's quotas (upstream: CheckRequest in the resourcequota
// admission controller): which quotas it falls under, the usage it adds (on update, the growth
// over the stored object), and whether every such quota still has room. Returns the quotas with
// status.used as it would be if the request is stored; throws the 403 the client sees when not.
import { forbidden, type ApiError } from "../../apimachinery/errors.js";
import { clone, type KObject } from "../../registry/object.js";
import type { GroupResource } from "../../apimachinery/errors.js";
import { quotaMatches, type EvaluatedRequest, type Evaluator } from "./evaluators/evaluator.js";
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
} from "./resource-list.js";

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

export function checkRequest(quotas: readonly KObject[], r: QuotaRequest, e: Evaluator, now: number): KObject[] {
  if (!e.handles(r) || !r.object) return [...quotas];
  const obj = r.object;
  const interesting: number[] = [];
  for (let i = 0; i < quotas.length; i++) {
    const q = quotas[i]!;
    if (!quotaMatches(e, q, obj)) continue;
    const restricted = e.matchingResources([...hardOf(q).keys()]);
    const failed = e.constraints(restricted, obj);
    if (failed) throw deny(r, `failed quota: ${q.metadata.name}: ${failed}`);
    const used = usedOf(q);
    const unknown = [...hardOf(q).keys()].filter((k) => restricted.includes(k) && !used.has(k));
    if (unknown.length > 0) throw deny(r, `status unknown for quota: ${q.metadata.name}, resources: ${[...restricted].sort().join(",")}`);
    interesting.push(i);
  }
  if (interesting.length === 0) return [...quotas];

  const inputUsage = e.usage(obj, now);
  const negative = negativeNames(inputUsage);
  if (negative.length > 0) throw deny(r, `quota usage is negative for resource(s): ${negative.sort().join(",")}`);

  const delta = new Map<number, ResourceList>(interesting.map((i) => [i, inputUsage]));
  if (r.operation === "UPDATE") {
    const prev = r.oldObject;
    if (!prev) throw deny(r, "unable to get previous usage since prior version of object was not found");
    if (prev.metadata.resourceVersion) {
      // Only the growth is charged to quotas that already counted the stored object.
      const growth = subtractNonNegative(inputUsage, e.usage(prev, now));
      for (const i of interesting) if (quotaMatches(e, quotas[i]!, prev)) delta.set(i, growth);
    }
  }
  for (const [i, d] of delta) {
    const nonZero = removeZeros(d);
    if (nonZero.size === 0) delta.delete(i);
    else delta.set(i, nonZero);
  }
  if (delta.size === 0) return [...quotas];

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
