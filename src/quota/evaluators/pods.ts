// Pods (upstream: pkg/quota/v1/evaluator/core/pods.go): count/pods for every stored pod; pods,
// cpu/memory/ephemeral-storage requests and limits, hugepages and extended resources for pods
// that are not terminal. Charged on create and on the resize subresource. Quotas on cpu or
// memory require every container to state them (upstream calls that a mistake it must keep).
import { isZeroQuantity } from "../../apimachinery/quantity.js";
import type { KObject } from "../../apimachinery/object.js";
import { podQOSClass } from "../../types/defaults/pod.js";
import { isQualifiedName } from "../../apimachinery/validation.js";
import { addLists, integerQuantity, resourceListOf, type ResourceList } from "../resource-list.js";
import { requirementMatches, type ScopeRequirement } from "../scopes.js";
import { intersection, objectCountName, type Evaluator } from "./evaluator.js";
import { podLimits, podRequests } from "./pod-resources.js";

const countName = objectCountName("", "pods");
const podResources = [
  countName,
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "pods",
];
const hugePagesPrefix = "hugepages-";
const requestsPrefix = "requests.";
/** Resources every container must state when a matching quota limits them. */
const validationSet = new Set(["cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"]);

type Obj = Record<string, any>;

/** Names outside the kubernetes.io domain (unprefixed names are inside it). */
const isNative = (name: string) => !name.includes("/") || name.includes("kubernetes.io/");

/** An extended resource a container may request (not native, not itself requests.-prefixed). */
function isExtendedResourceName(name: string): boolean {
  if (isNative(name) || name.startsWith(requestsPrefix)) return false;
  return isQualifiedName(requestsPrefix + name).length === 0;
}

/** A quota name for an extended resource: only requests.<name> exists (no overcommit). */
const isExtendedResourceNameForQuota = (name: string) => !isNative(name) && name.startsWith(requestsPrefix);

/** Compute usage of one set of requests and limits (podComputeUsageHelper). */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([["pods", integerQuantity(1)]]);
  for (const r of ["cpu", "memory", "ephemeral-storage"]) {
    const req = requests.get(r);
    if (req) {
      out.set(r, req);
      out.set(`requests.${r}`, req);
    }
    const lim = limits.get(r);
    if (lim) out.set(`limits.${r}`, lim);
  }
  for (const [name, q] of requests) {
    if (name.startsWith(hugePagesPrefix)) {
      out.set(name, q);
      out.set(requestsPrefix + name, q);
    }
    if (isExtendedResourceName(name)) out.set(requestsPrefix + name, q);
  }
  return out;
}

/** Not terminal, and not stuck terminating past its grace period (QuotaV1Pod). */
function chargesCompute(pod: Obj, now: number): boolean {
  const phase = pod.status?.phase;
  if (phase === "Failed" || phase === "Succeeded") return false;
  const ts = pod.metadata?.deletionTimestamp;
  const grace = pod.metadata?.deletionGracePeriodSeconds;
  if (ts && typeof grace === "number" && now > Date.parse(ts) + grace * 1000) return false;
  return true;
}

export function podUsage(pod: KObject, now: number): ResourceList {
  const usage: ResourceList = new Map([[countName, integerQuantity(1)]]);
  if (!chargesCompute(pod as Obj, now)) return usage;
  const spec = (pod.spec ?? {}) as Obj;
  return addLists(usage, computeUsage(podRequests(spec), podLimits(spec)));
}

function isTerminating(pod: Obj): boolean {
  const ads = pod.spec?.activeDeadlineSeconds;
  return typeof ads === "number" && ads >= 0;
}

function isBestEffort(pod: Obj): boolean {
  const spec = (pod.spec ?? {}) as Obj;
  const podLevel = spec.resources ?? {};
  for (const list of [podLevel.requests, podLevel.limits]) {
    for (const r of ["cpu", "memory"]) if (list?.[r] !== undefined && !isZeroQuantity(list[r])) return false;
  }
  return podQOSClass(spec) === "BestEffort";
}

function hasCrossNamespaceTerm(terms: unknown, weighted: boolean): boolean {
  if (!Array.isArray(terms)) return false;
  return terms.some((t) => {
    const term = (weighted ? t?.podAffinityTerm : t) ?? {};
    return (Array.isArray(term.namespaces) && term.namespaces.length > 0) || (term.namespaceSelector !== undefined && term.namespaceSelector !== null);
  });
}

function usesCrossNamespacePodAffinity(pod: Obj): boolean {
  const affinity = pod.spec?.affinity;
  if (!affinity) return false;
  for (const a of [affinity.podAffinity, affinity.podAntiAffinity]) {
    if (!a) continue;
    if (hasCrossNamespaceTerm(a.requiredDuringSchedulingIgnoredDuringExecution, false)) return true;
    if (hasCrossNamespaceTerm(a.preferredDuringSchedulingIgnoredDuringExecution, true)) return true;
  }
  return false;
}

export function podMatchesScope(req: ScopeRequirement, obj: KObject): boolean {
  const pod = obj as Obj;
  switch (req.scopeName) {
    case "Terminating":
      return isTerminating(pod);
    case "NotTerminating":
      return !isTerminating(pod);
    case "BestEffort":
      return isBestEffort(pod);
    case "NotBestEffort":
      return !isBestEffort(pod);
    case "PriorityClass": {
      const cls = typeof pod.spec?.priorityClassName === "string" ? pod.spec.priorityClassName : "";
      if (req.operator === "Exists") return cls !== "";
      return requirementMatches(req, cls ? { PriorityClass: cls } : {});
    }
    case "CrossNamespacePodAffinity":
      return usesCrossNamespacePodAffinity(pod);
    default:
      return false;
  }
}

/** "must specify limits.cpu for: a,b; requests.memory for: c", or undefined. */
function podConstraints(required: readonly string[], obj: KObject): string | undefined {
  const requiredSet = required.filter((r) => validationSet.has(r));
  if (requiredSet.length === 0) return undefined;
  const missing = new Map<string, Set<string>>();
  const spec = (obj.spec ?? {}) as Obj;
  for (const c of [...(Array.isArray(spec.containers) ? spec.containers : []), ...(Array.isArray(spec.initContainers) ? spec.initContainers : [])]) {
    const usage = computeUsage(resourceListOf(c?.resources?.requests), resourceListOf(c?.resources?.limits));
    for (const r of requiredSet) {
      if (usage.has(r)) continue;
      if (!missing.has(r)) missing.set(r, new Set());
      missing.get(r)!.add(String(c?.name ?? ""));
    }
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(",")}`);
  return `must specify ${parts.join("; ")}`;
}

export const podEvaluator: Evaluator = {
  group: "",
  resource: "pods",
  handles(r) {
    if (r.subresource !== "" && r.subresource !== "resize") return false;
    return r.operation === "CREATE" || (r.subresource === "resize" && r.operation === "UPDATE");
  },
  matchingResources(input) {
    const out = intersection(input, podResources);
    for (const r of input) {
      if (r.startsWith(hugePagesPrefix) || r.startsWith(requestsPrefix + hugePagesPrefix)) out.push(r);
      if (isExtendedResourceNameForQuota(r)) out.push(r);
    }
    return out;
  },
  matchesScope: podMatchesScope,
  constraints: podConstraints,
  usage: podUsage,
};
