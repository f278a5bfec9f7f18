// LimitRanger (upstream plugin/pkg/admission/limitranger): the LimitRanges of a pod's namespace
// default its containers' requests and limits (type Container: default, defaultRequest; recorded
// in the kubernetes.io/limit-ranger annotation), then bound them: min, max and
// maxLimitRequestRatio per Container and per Pod, min and max storage requests per
// PersistentVolumeClaim. Pods are only looked at on create (their containers are immutable).
import { formatQuantity, parseQuantity, type Fraction } from "../../apimachinery/quantity.js";
import { expiringCache } from "../../apimachinery/expiring-cache.js";
import type { KObject } from "../../apimachinery/object.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../../registry/admission.js";
import type { AdmissionParts } from "../plugins.js";
import { admissionForbidden, aggregateMessage } from "./forbidden.js";
import { objectLookup } from "./lookup.js";
import { isObj, objs, str, type Obj } from "./pod-shape.js";

export const limitRangerAnnotation = "kubernetes.io/limit-ranger";

type ResourceList = Record<string, unknown>;
const list = (v: unknown): ResourceList => (isObj(v) ? v : {});

export function limitRanger(parts: () => AdmissionParts, liveTtlMs = 30_000): AdmissionPlugin {
  const ranges = objectLookup(parts, "", "limitranges");

  // Live reads of namespaces the informer has no ranges for, kept for a while (upstream: 30 s)
  // and shared by concurrent requests, so that pods in a namespace without ranges cost no read each.
  // Bounded, as upstream's LRU.
  const live = expiringCache<Promise<KObject[]>>({ max: 4096 });

  /** The namespace's LimitRanges; none in the informer → a (cached) live read, as it may lag a new one. */
  async function limitRanges(ns: string): Promise<KObject[]> {
    const cached = await ranges.list(ns);
    if (cached.length > 0) return cached;
    const hit = live.get(ns);
    if (hit) return hit;
    const items = ranges.liveList(ns);
    if (liveTtlMs > 0) live.set(ns, items, { ttl: liveTtlMs });
    items.catch(() => live.delete(ns));
    return items;
  }

  const applies = (a: AdmissionAttributes) => {
    if (a.subresource !== "" || a.type.group !== "" || !a.object) return false;
    if (a.oldObject?.metadata.deletionTimestamp) return false; // objects on their way out are left alone
    if (a.type.resource === "pods") return a.operation === "CREATE";
    return a.type.resource === "persistentvolumeclaims";
  };

  return {
    name: "LimitRanger",
    operations: ["CREATE", "UPDATE"],
    resources: [{ group: "", resource: "pods" }, { group: "", resource: "persistentvolumeclaims" }],
    async admit(a) {
      if (!applies(a) || a.type.resource !== "pods") return;
      for (const lr of await limitRanges(a.namespace)) defaultPodResources(lr, a.object!);
    },
    async validate(a) {
      if (!applies(a)) return;
      for (const lr of await limitRanges(a.namespace)) {
        const errs = a.type.resource === "pods" ? podLimitErrors(lr, a.object!) : claimLimitErrors(lr, a.object!);
        if (errs.length > 0) throw admissionForbidden(a, aggregateMessage(errs));
      }
    },
  };
}

const limitItems = (lr: KObject): Obj[] => objs(isObj(lr.spec) ? (lr.spec as Obj).limits : undefined);

/** The Container defaults of one LimitRange, then merged into every (init) container. */
export function defaultPodResources(lr: KObject, pod: KObject): void {
  const requests: ResourceList = {};
  const limits: ResourceList = {};
  for (const item of limitItems(lr)) {
    if (item.type !== "Container") continue;
    Object.assign(requests, list(item.defaultRequest));
    Object.assign(limits, list(item.default));
  }
  const spec = isObj(pod.spec) ? (pod.spec as Obj) : {};
  const notes: string[] = [];
  for (const c of objs(spec.containers)) merge(c, "container", requests, limits, notes);
  for (const c of objs(spec.initContainers)) merge(c, "init container", requests, limits, notes);
  if (notes.length > 0) {
    pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [limitRangerAnnotation]: `LimitRanger plugin set: ${notes.join("; ")}` };
  }
}

function merge(c: Obj, what: string, requests: ResourceList, limits: ResourceList, notes: string[]): void {
  const setRequests: string[] = [];
  const setLimits: string[] = [];
  const resources = isObj(c.resources) ? c.resources : {};
  const have = (k: "limits" | "requests") => (isObj(resources[k]) ? (resources[k] as Obj) : undefined);
  for (const [k, v] of Object.entries(limits)) {
    if (have("limits") && k in have("limits")!) continue;
    resources.limits = { ...(have("limits") ?? {}), [k]: v };
    setLimits.push(k);
  }
  for (const [k, v] of Object.entries(requests)) {
    if (have("requests") && k in have("requests")!) continue;
    resources.requests = { ...(have("requests") ?? {}), [k]: v };
    setRequests.push(k);
  }
  if (setLimits.length + setRequests.length > 0) c.resources = resources;
  if (setRequests.length > 0) notes.push(`${setRequests.sort().join(", ")} request for ${what} ${str(c.name)}`);
  if (setLimits.length > 0) notes.push(`${setLimits.sort().join(", ")} limit for ${what} ${str(c.name)}`);
}

// ---- the checks, with upstream's precision: milli-units unless a value would overflow them

const maxMilliValue = 9223372036854775807n / 1000n;
const zero: Fraction = { n: 0n, d: 1n };
const ceilDiv = (n: bigint, d: bigint) => (n >= 0n ? (n + d - 1n) / d : n / d);
const value = (f: Fraction) => ceilDiv(f.n, f.d);
const milli = (f: Fraction) => ceilDiv(f.n * 1000n, f.d);

/** requestLimitEnforcedValues: the three as integers, in milli-units when none overflows them. */
function observed(req: Fraction, lim: Fraction, enforced: Fraction): [bigint, bigint, bigint] {
  const whole: [bigint, bigint, bigint] = [value(req), value(lim), value(enforced)];
  if (whole.every((v) => v <= maxMilliValue)) return [milli(req), milli(lim), milli(enforced)];
  return whole;
}

const q = (v: unknown): Fraction => parseQuantity(v) ?? zero;

function minConstraint(kind: string, name: string, enforced: unknown, requests: ResourceList, limits: ResourceList): string | undefined {
  const hasReq = name in requests;
  const hasLim = name in limits;
  const [req, lim, enf] = observed(q(requests[name]), q(limits[name]), q(enforced));
  const e = formatQuantity(enforced);
  if (!hasReq) return `minimum ${name} usage per ${kind} is ${e}.  No request is specified`;
  if (req < enf) return `minimum ${name} usage per ${kind} is ${e}, but request is ${formatQuantity(requests[name])}`;
  if (hasLim && lim < enf) return `minimum ${name} usage per ${kind} is ${e}, but limit is ${formatQuantity(limits[name])}`;
  return undefined;
}

function maxConstraint(kind: string, name: string, enforced: unknown, requests: ResourceList, limits: ResourceList): string | undefined {
  const hasReq = name in requests;
  const hasLim = name in limits;
  const [req, lim, enf] = observed(q(requests[name]), q(limits[name]), q(enforced));
  const e = formatQuantity(enforced);
  if (!hasLim) return `maximum ${name} usage per ${kind} is ${e}.  No limit is specified`;
  if (lim > enf) return `maximum ${name} usage per ${kind} is ${e}, but limit is ${formatQuantity(limits[name])}`;
  if (hasReq && req > enf) return `maximum ${name} usage per ${kind} is ${e}, but request is ${formatQuantity(requests[name])}`;
  return undefined;
}

/** The max check of types whose limits are not user input (claims): the request alone. */
function maxRequestConstraint(kind: string, name: string, enforced: unknown, requests: ResourceList): string | undefined {
  const [req, , enf] = observed(q(requests[name]), zero, q(enforced));
  const e = formatQuantity(enforced);
  if (!(name in requests)) return `maximum ${name} usage per ${kind} is ${e}.  No request is specified`;
  if (req > enf) return `maximum ${name} usage per ${kind} is ${e}, but request is ${formatQuantity(requests[name])}`;
  return undefined;
}

function ratioConstraint(kind: string, name: string, enforced: unknown, requests: ResourceList, limits: ResourceList): string | undefined {
  const [req, lim] = observed(q(requests[name]), q(limits[name]), q(enforced));
  const e = formatQuantity(enforced);
  if (!(name in requests) || req === 0n) return `${name} max limit to request ratio per ${kind} is ${e}, but no request is specified or request is 0`;
  if (!(name in limits) || lim === 0n) return `${name} max limit to request ratio per ${kind} is ${e}, but no limit is specified or limit is 0`;
  const ratio = Number(lim) / Number(req);
  const enf = q(enforced);
  const enforcedValue = value(enf);
  // Compared in milli-units when the bound allows it, as upstream.
  const exceeded = enforcedValue <= maxMilliValue ? ratio * 1000 > Number(milli(enf)) : ratio > Number(enforcedValue);
  return exceeded ? `${name} max limit to request ratio per ${kind} is ${e}, but provided ratio is ${ratio.toFixed(6)}` : undefined;
}

type Check = (kind: string, name: string, enforced: unknown, requests: ResourceList, limits: ResourceList) => string | undefined;

function bound(item: Obj, kind: string, requests: ResourceList, limits: ResourceList, errs: string[]): void {
  const checks: [string, Check][] = [["min", minConstraint], ["max", maxConstraint], ["maxLimitRequestRatio", ratioConstraint]];
  for (const [field, check] of checks) {
    for (const [name, enforced] of Object.entries(list(item[field]))) {
      const e = check(kind, name, enforced, requests, limits);
      if (e) errs.push(e);
    }
  }
}

/** PodValidateLimitFunc: every (init) container against Container items, the pod's totals against Pod items. */
export function podLimitErrors(lr: KObject, pod: KObject): string[] {
  const spec = isObj(pod.spec) ? (pod.spec as Obj) : {};
  const errs: string[] = [];
  for (const item of limitItems(lr)) {
    if (item.type === "Container") {
      for (const c of [...objs(spec.containers), ...objs(spec.initContainers)]) {
        const r = isObj(c.resources) ? c.resources : {};
        bound(item, "Container", list(r.requests), list(r.limits), errs);
      }
    } else if (item.type === "Pod") {
      bound(item, "Pod", podTotals(spec, "requests"), podTotals(spec, "limits"), errs);
    }
  }
  return errs;
}

/** PersistentVolumeClaimValidateLimitFunc: the storage request against PersistentVolumeClaim items. */
export function claimLimitErrors(lr: KObject, claim: KObject): string[] {
  const spec = isObj(claim.spec) ? (claim.spec as Obj) : {};
  const requests = list(isObj(spec.resources) ? spec.resources.requests : undefined);
  const errs: string[] = [];
  for (const item of limitItems(lr)) {
    if (item.type !== "PersistentVolumeClaim") continue;
    for (const [name, enforced] of Object.entries(list(item.min))) {
      const e = minConstraint("PersistentVolumeClaim", name, enforced, requests, {});
      if (e) errs.push(e);
    }
    for (const [name, enforced] of Object.entries(list(item.max))) {
      const e = maxRequestConstraint("PersistentVolumeClaim", name, enforced, requests);
      if (e) errs.push(e);
    }
  }
  return errs;
}

// ---- pod totals (resourcehelper.PodRequests / PodLimits): the containers' sum, sidecars
// (restartable init containers) added to everything after them, each other init container's
// need (with the sidecars started before it) taken when larger.

const add = (a: Fraction, b: Fraction): Fraction => ({ n: a.n * b.d + b.n * a.d, d: a.d * b.d });
const greater = (a: Fraction, b: Fraction) => a.n * b.d > b.n * a.d;

function podTotals(spec: Obj, which: "requests" | "limits"): ResourceList {
  // Sums keep the format of the first quantity met (Quantity.Add keeps the receiver's).
  const binary = new Map<string, boolean>();
  const of = (c: Obj): Record<string, Fraction> => {
    const r = isObj(c.resources) ? list(c.resources[which]) : {};
    for (const [k, v] of Object.entries(r)) if (!binary.has(k)) binary.set(k, /[KMGTPE]i$/.test(String(v).trim()));
    return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, q(v)]));
  };
  const sum: Record<string, Fraction> = {};
  const addTo = (acc: Record<string, Fraction>, r: Record<string, Fraction>) => {
    for (const [k, v] of Object.entries(r)) acc[k] = acc[k] ? add(acc[k]!, v) : v;
  };
  for (const c of objs(spec.containers)) addTo(sum, of(c));
  const sidecars: Record<string, Fraction> = {};
  const initMax: Record<string, Fraction> = {};
  for (const c of objs(spec.initContainers)) {
    const r = of(c);
    if (c.restartPolicy === "Always") {
      addTo(sum, r);
      addTo(sidecars, r);
      continue;
    }
    const need: Record<string, Fraction> = { ...sidecars };
    addTo(need, r);
    for (const [k, v] of Object.entries(need)) if (!initMax[k] || greater(v, initMax[k]!)) initMax[k] = v;
  }
  for (const [k, v] of Object.entries(initMax)) if (!sum[k] || greater(v, sum[k]!)) sum[k] = v;
  // Pod-level resources (PodLevelResources, on in 1.34) stand for the pod's cpu and memory when set.
  const podLevel = isObj(spec.resources) ? list((spec.resources as Obj)[which]) : {};
  for (const k of ["cpu", "memory"]) {
    if (podLevel[k] === undefined) continue;
    sum[k] = q(podLevel[k]);
    binary.set(k, /[KMGTPE]i$/.test(String(podLevel[k]).trim()));
  }
  // Back to quantity strings for the messages: exact decimal forms.
  return Object.fromEntries(Object.entries(sum).map(([k, f]) => [k, fractionString(f, binary.get(k) ?? false)]));
}

/** An exact quantity string for a fraction of decimal denominators (at most nano precision). */
function fractionString(f: Fraction, binary: boolean): string {
  if (binary && f.n % f.d === 0n && (f.n / f.d) % 1024n === 0n) return formatQuantity(`${f.n / f.d / 1024n}Ki`);
  const nano = (f.n * 1_000_000_000n) / f.d;
  return formatQuantity(`${nano}n`);
}
