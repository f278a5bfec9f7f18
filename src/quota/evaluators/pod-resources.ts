// A pod's effective requests and limits as the scheduler and quota see them (upstream:
// k8s.io/component-helpers resource.PodRequests / PodLimits): containers add up; init containers
// run one at a time, so the pod needs the largest of them, each beside the restartable
// (sidecar) init containers started before it, while sidecars keep running and add to the sum;
// pod-level resources (spec.resources) replace the cpu and memory totals; the runtime class's
// overhead is added (to limits only where a limit is set).
import { add, cmp, resourceListOf, type ResourceList } from "../resource-list.js";

type Container = { resources?: { requests?: unknown; limits?: unknown }; restartPolicy?: string };
type PodSpec = { containers?: Container[]; initContainers?: Container[]; overhead?: unknown; resources?: { requests?: unknown; limits?: unknown } };

const podLevelResources = ["cpu", "memory"];

function addInto(into: ResourceList, more: ResourceList): void {
  for (const [k, v] of more) into.set(k, into.has(k) ? add(into.get(k)!, v) : v);
}

function maxInto(into: ResourceList, other: ResourceList): void {
  for (const [k, v] of other) {
    const cur = into.get(k);
    if (!cur || cmp(v, cur) > 0) into.set(k, v);
  }
}

function aggregate(spec: PodSpec, which: "requests" | "limits"): ResourceList {
  const total: ResourceList = new Map();
  for (const c of Array.isArray(spec.containers) ? spec.containers : []) addInto(total, resourceListOf(c?.resources?.[which]));
  const sidecars: ResourceList = new Map();
  const initPeak: ResourceList = new Map();
  for (const c of Array.isArray(spec.initContainers) ? spec.initContainers : []) {
    const own = resourceListOf(c?.resources?.[which]);
    if (c?.restartPolicy === "Always") {
      addInto(total, own);
      addInto(sidecars, own);
      maxInto(initPeak, sidecars);
    } else {
      const withSidecars: ResourceList = new Map(own);
      addInto(withSidecars, sidecars);
      maxInto(initPeak, withSidecars);
    }
  }
  maxInto(total, initPeak);
  const podLevel = resourceListOf(spec.resources?.[which]);
  if ([...podLevel.keys()].some((k) => podLevelResources.includes(k))) {
    for (const [k, v] of podLevel) if (podLevelResources.includes(k)) total.set(k, v);
  }
  return total;
}

export function podRequests(spec: PodSpec): ResourceList {
  const reqs = aggregate(spec, "requests");
  addInto(reqs, resourceListOf(spec.overhead));
  return reqs;
}

export function podLimits(spec: PodSpec): ResourceList {
  const limits = aggregate(spec, "limits");
  for (const [k, v] of resourceListOf(spec.overhead)) if (limits.has(k)) limits.set(k, add(limits.get(k)!, v));
  return limits;
}
