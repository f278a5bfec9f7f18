// POST pods/<name>/eviction: deletes a pod unless that would violate its PodDisruptionBudget
// (what `kubectl drain` calls). The Eviction is admitted as a create of pods/eviction; the
// budget's status is charged through the store (an admitted status update, as upstream's
// loopback client does) and the pod deleted without admission of its own (upstream's
// EvictionREST). With no disruption controller, a budget nobody has processed answers 429, as
// kube-apiserver alone does.
import { ApiError, badRequest, forbidden } from "../apimachinery/errors.js";
import { deepClone } from "../apimachinery/json-value.js";
import { labelSelectorFromObject, type LabelSelectorObject } from "../apimachinery/labels.js";
import type { KObject } from "../apimachinery/object.js";
import { nowTimestamp } from "../apimachinery/object.js";
import type { DeleteOptions, PropagationPolicy } from "../registry/store.js";
import type { ResourceRequest } from "./context.js";
import type { Creater, RestStorage } from "./rest/capabilities.js";
import { readObject } from "./body.js";
import { parseDryRun } from "./options.js";
import { negotiateWrite, writeResult } from "./output.js";
import { writeOptions } from "./write-options.js";

const evictionTypeMetas = [
  { apiVersion: "policy/v1", kind: "Eviction" },
  { apiVersion: "policy/v1beta1", kind: "Eviction" },
];
/** Upstream's bound on DisruptedPods: evictions approved but not yet seen by the disruption controller. */
const maxDisruptedPods = 2000;
const maxAttempts = 20;

interface EvictionDeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: PropagationPolicy;
  orphanDependents?: boolean;
  dryRun?: string[];
}

interface Pdb {
  metadata: KObject["metadata"];
  spec?: { selector?: LabelSelectorObject; unhealthyPodEvictionPolicy?: string };
  status?: { observedGeneration?: number; disruptionsAllowed?: number; currentHealthy?: number; desiredHealthy?: number; disruptedPods?: Record<string, string>; conditions?: Record<string, unknown>[] };
}

const success = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };

function tooManyRequests(cause: string, retryAfterSeconds: number): ApiError {
  return new ApiError(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.", {
    causes: [{ reason: "DisruptionBudget", message: cause }],
    ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}),
  });
}

const stillProcessing = (pdb: string) => tooManyRequests(`The disruption budget ${pdb} is still being processed by the server.`, 10);

function phaseOf(pod: KObject): string {
  return ((pod.status ?? {}) as { phase?: string }).phase ?? "";
}

/** Terminal, pending or already deleting pods are deleted without asking their budget. */
const canIgnoreBudget = (pod: KObject) => ["Succeeded", "Failed", "Pending"].includes(phaseOf(pod)) || !!pod.metadata.deletionTimestamp;
const shouldEnforceResourceVersion = (pod: KObject) => !["Succeeded", "Failed"].includes(phaseOf(pod)) && !pod.metadata.deletionTimestamp;

function isReady(pod: KObject): boolean {
  const conditions = ((pod.status ?? {}) as { conditions?: { type?: string; status?: string }[] }).conditions ?? [];
  return conditions.some((c) => c.type === "Ready" && c.status === "True");
}

function deleteOptionsOf(eviction: KObject, dryRun: boolean): DeleteOptions {
  const o = ((eviction as { deleteOptions?: EvictionDeleteOptions }).deleteOptions ?? {}) as EvictionDeleteOptions;
  const policy = o.propagationPolicy ?? (o.orphanDependents === undefined ? undefined : o.orphanDependents ? "Orphan" : "Background");
  return {
    dryRun: dryRun || (o.dryRun ?? []).includes("All"),
    ...(o.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: o.gracePeriodSeconds } : {}),
    ...(o.preconditions ? { preconditions: { ...o.preconditions } } : {}),
    ...(policy ? { propagationPolicy: policy } : {}),
    // The pod's deletion is the eviction's effect: admitted as the eviction (upstream's EvictionREST).
    skip: { admission: true },
  };
}

const withResourceVersion = (opts: DeleteOptions, rv: string | undefined): DeleteOptions => ({ ...opts, preconditions: { ...opts.preconditions, resourceVersion: rv } });

/** pods/eviction: created only. */
export const evictionStorage: Creater & RestStorage = {
  unservedVerb: "NotFound",
  async create(r: ResourceRequest) {
    const n = negotiateWrite(r);
    const { namespace, name } = r.info;
    const { stores, types } = r.parts;
    const body = await readObject(r, evictionTypeMetas);
    if ((body.metadata?.name ?? "") !== name) throw badRequest("name in URL does not match name in Eviction object");
    const requested = parseDryRun(r.ex.query, "CreateOptions");
    const eviction = (await r.store.create(namespace, body, writeOptions(r, { dryRun: requested, subresource: { subresource: "eviction", name } }))).object;
    const original = deleteOptionsOf(eviction, requested);
    const rvGiven = original.preconditions?.resourceVersion !== undefined;
    const del = (opts: DeleteOptions) => r.store.delete(namespace, name, writeOptions(r, opts));

    // Pods whose budget does not matter are deleted at once (retried on conflict unless the
    // client gave a resourceVersion precondition).
    let pod: KObject | undefined;
    for (let attempt = 0; ; attempt++) {
      pod = await r.store.get(namespace, name);
      if (!canIgnoreBudget(pod)) break;
      try {
        await del(shouldEnforceResourceVersion(pod) && !rvGiven ? withResourceVersion(original, pod.metadata.resourceVersion) : original);
        writeResult(r, n, 201, success);
        return;
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 409) || rvGiven || attempt >= maxAttempts) throw e;
      }
    }

    const pdbType = types.get("policy", "v1", "poddisruptionbudgets");
    const budgets: Pdb[] = [];
    if (pdbType) {
      for (const { object } of (await stores.for(pdbType).listStored(namespace)).items) {
        const pdb = object as unknown as Pdb;
        let selector;
        try {
          selector = labelSelectorFromObject(pdb.spec?.selector);
        } catch {
          continue; // an invalid selector matches no pod
        }
        // A nil or empty selector matches nothing, not everything.
        if (selector.isEmpty() || selector.matchesNothing() || !selector.matches(pod.metadata.labels ?? {})) continue;
        budgets.push(pdb);
      }
    }
    if (budgets.length > 1) {
      writeResult(r, n, 500, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.", code: 500 });
      return;
    }
    let guarded = false;
    const budget = budgets[0];
    if (budget) {
      const st = budget.status ?? {};
      const unhealthy = !isReady(pod);
      if (unhealthy && budget.spec?.unhealthyPodEvictionPolicy === "AlwaysAllow") guarded = true;
      else if (unhealthy && (st.currentHealthy ?? 0) >= (st.desiredHealthy ?? 0) && (st.desiredHealthy ?? 0) > 0) guarded = true;
      else await chargeBudget(r, pdbType!.resource, namespace, budget.metadata.name!, name, original.dryRun);
    }
    try {
      await del(guarded ? withResourceVersion(original, pod.metadata.resourceVersion) : original);
    } catch (e) {
      // The pod changed since it was found unready: ask the client to try again.
      if (e instanceof ApiError && e.code === 409 && guarded && !rvGiven) throw stillProcessing(budget!.metadata.name!);
      throw e;
    }
    writeResult(r, n, 201, success);
  },
};

/** Verifies the budget allows a disruption and records it (upstream: checkAndDecrement). */
async function chargeBudget(r: ResourceRequest, resource: string, namespace: string, pdbName: string, podName: string, dryRun: boolean): Promise<void> {
  const t = r.parts.types.get("policy", "v1", resource)!;
  const check = (pdb: Pdb) => {
    const st = pdb.status ?? {};
    if ((st.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0)) throw stillProcessing(pdbName);
    const allowed = st.disruptionsAllowed ?? 0;
    if (allowed < 0) throw forbiddenBudget(pdbName, "pdb disruptions allowed is negative");
    if (Object.keys(st.disruptedPods ?? {}).length > maxDisruptedPods) throw forbiddenBudget(pdbName, "DisruptedPods map too big - too many evictions not confirmed by PDB controller");
    if (allowed === 0) throw tooManyRequests(`The disruption budget ${pdbName} needs ${st.desiredHealthy ?? 0} healthy pods and has ${st.currentHealthy ?? 0} currently`, 0);
  };
  if (dryRun) {
    check((await r.parts.stores.for(t).get(namespace, pdbName)) as unknown as Pdb);
    return;
  }
  await r.parts.stores.for(t).update(namespace, pdbName, {
    subresource: "status",
    createIfMissing: false,
    desired(current) {
      if (!current) throw stillProcessing(pdbName);
      const pdb = deepClone(current) as unknown as Pdb;
      check(pdb);
      const st = (pdb.status ??= {});
      st.disruptionsAllowed = (st.disruptionsAllowed ?? 0) - 1;
      if (st.disruptionsAllowed === 0) markInsufficientPods(st);
      st.disruptedPods = { ...st.disruptedPods, [podName]: nowTimestamp() };
      return pdb as unknown as KObject;
    },
  }, writeOptions(r, { dryRun: false }));
}

const forbiddenBudget = (pdbName: string, why: string) => forbidden({ group: "policy", resource: "poddisruptionbudget" }, pdbName, why);

/** The DisruptionAllowed condition once the last allowed disruption is taken (upstream's helper). */
function markInsufficientPods(st: NonNullable<Pdb["status"]>): void {
  const conditions = (st.conditions ??= []);
  const existing = conditions.find((c) => c.type === "DisruptionAllowed");
  const next = { type: "DisruptionAllowed", status: "False", reason: "InsufficientPods", message: "", observedGeneration: st.observedGeneration ?? 0 };
  if (existing) {
    if (existing.status !== "False") existing.lastTransitionTime = nowTimestamp();
    Object.assign(existing, next);
  } else conditions.push({ ...next, lastTransitionTime: nowTimestamp() });
}
