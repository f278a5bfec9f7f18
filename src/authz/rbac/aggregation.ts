// The ClusterRole aggregation controller (upstream pkg/controller/clusterroleaggregation,
// --controllers name clusterrole-aggregation-controller): a ClusterRole with
// aggregationRule.clusterRoleSelectors gets as `rules` the rules of every other ClusterRole
// matching any selector — selectors in order, matching roles by name, each rule once (first
// occurrence kept) — written only when they differ. Any ClusterRole change requeues every
// aggregated ClusterRole, so a labelled role created, changed or deleted shows at once.
import { deepClone } from "../../apimachinery/json-value.js";
import { labelSelectorFromObject, type LabelSelectorObject } from "../../apimachinery/labels.js";
import type { ObjectInformer } from "../../registry/informer-factory.js";
import type { KObject } from "../../apimachinery/object.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { Stores } from "../../registry/stores.js";
import { runController, type Controller, type ControllerContext } from "../../controller-runtime/controller.js";
import { fixedDelayRateLimiter } from "../../controller-runtime/rate-limiter.js";
import { toPolicyRule } from "./rules.js";

export const aggregationFieldManager = "clusterrole-aggregation-controller";

export interface AggregationDeps {
  stores: Stores;
  clusterRolesType: ResourceType;
  clusterRoles: ObjectInformer;
  log?: (msg: string) => void;
  /** After a failed write (not a conflict). */
  retryMs?: number;
}

type Selectors = LabelSelectorObject[];
const selectorsOf = (o: KObject): Selectors | undefined => {
  const ar = (o as { aggregationRule?: { clusterRoleSelectors?: unknown } }).aggregationRule;
  return ar && typeof ar === "object" ? (Array.isArray(ar.clusterRoleSelectors) ? (ar.clusterRoleSelectors as Selectors) : []) : undefined;
};
const rawRules = (o: KObject): unknown[] => {
  const r = (o as { rules?: unknown }).rules;
  return Array.isArray(r) ? r : [];
};
/**
 * A rule's identity for semantic equality: absent and empty lists are the same. toPolicyRule
 * writes the fields in one order, so equal rules have equal texts (a set of them makes
 * aggregation linear: the default roles aggregate hundreds of rules at every start).
 */
const ruleKey = (r: unknown) => {
  const p = toPolicyRule(r) as unknown as Record<string, unknown>;
  for (const k of Object.keys(p)) if (Array.isArray(p[k]) && (p[k] as unknown[]).length === 0) delete p[k];
  return JSON.stringify(p);
};

/** The rules `role` aggregates from `all` (upstream syncClusterRole), or an error text. */
export function aggregatedRules(role: KObject, all: readonly KObject[]): unknown[] | { error: string } {
  const selectors = selectorsOf(role) ?? [];
  const out: unknown[] = [];
  const seen = new Set<string>();
  const sorted = [...all].sort((a, b) => ((a.metadata.name ?? "") < (b.metadata.name ?? "") ? -1 : (a.metadata.name ?? "") > (b.metadata.name ?? "") ? 1 : 0));
  for (const s of selectors) {
    let sel;
    try {
      sel = labelSelectorFromObject(s);
    } catch (e) {
      return { error: (e as Error).message };
    }
    for (const cr of sorted) {
      if (cr.metadata.name === role.metadata.name || !sel.matches(cr.metadata.labels)) continue;
      for (const r of rawRules(cr)) {
        const key = ruleKey(r);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(r);
      }
    }
  }
  return out;
}

export function startClusterRoleAggregation(d: AggregationDeps): Controller {
  const log = d.log ?? (() => undefined);
  const retryMs = d.retryMs ?? 1000;

  async function sync(name: string, ctx: ControllerContext): Promise<void> {
    const role = d.clusterRoles.get("", name);
    if (!role || !selectorsOf(role)) return;
    const wanted = aggregatedRules(role, d.clusterRoles.list());
    if ("error" in wanted) {
      log(`${aggregationFieldManager}: ClusterRole ${name}: ${wanted.error}`);
      return;
    }
    const same = (rules: unknown[]) => rules.length === wanted.length && rules.every((r, i) => ruleKey(r) === ruleKey(wanted[i]));
    if (same(rawRules(role))) return;
    await d.stores
      .for(d.clusterRolesType)
      .update(
        "",
        name,
        {
          subresource: "",
          createIfMissing: false,
          desired: (current) => {
            if (!current) throw Object.assign(new Error("gone"), { reason: "NotFound" });
            const next = deepClone(current) as KObject & { rules?: unknown[] };
            next.rules = deepClone(wanted);
            return next;
          },
        },
        { dryRun: false, fieldManager: aggregationFieldManager },
      )
      .catch((e) => {
        const reason = (e as { reason?: string })?.reason;
        if (reason === "NotFound") return;
        if (reason !== "Conflict") log(`${aggregationFieldManager}: error updating ClusterRole ${name}: ${(e as Error)?.message ?? String(e)}`);
        ctx.enqueueAfter(name, reason === "Conflict" ? 0 : retryMs);
      });
  }

  // Every change requeues every aggregated role; a burst of events (the initial list) is one pass.
  let scheduled = false;
  const enqueueAll = (ctx: ControllerContext) => () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      if (stopped) return;
      for (const cr of d.clusterRoles.list()) if (selectorsOf(cr)) ctx.enqueue(cr.metadata.name ?? "");
    });
  };
  let stopped = false;
  return runController({
    name: aggregationFieldManager,
    setup(ctx) {
      ctx.onStop(() => (stopped = true));
      const all = enqueueAll(ctx);
      // Keys come from the whole list, not from the changed role: the handler queues them itself.
      const queueAll = () => (all(), undefined);
      ctx.watch({ informer: d.clusterRoles, added: queueAll, updated: queueAll, deleted: queueAll });
    },
    reconcile: sync,
    onError: (key, err) => log(`${aggregationFieldManager}: ClusterRole ${key}: ${(err as Error)?.message ?? String(err)}`),
    retry: fixedDelayRateLimiter(retryMs),
  });
}
