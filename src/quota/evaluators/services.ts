// Services (upstream: pkg/quota/v1/evaluator/core/services.go): services, services.nodeports and
// services.loadbalancers; evaluated on create and update because the type can change.
import type { KObject } from "../../apimachinery/object.js";
import { integerQuantity, zeroQuantity, type ResourceList } from "../resource-list.js";
import { intersection, objectCountName, type Evaluator } from "./evaluator.js";

const countName = objectCountName("", "services");
const serviceResources = [countName, "services", "services.nodeports", "services.loadbalancers"];

export function serviceUsage(svc: KObject): ResourceList {
  const spec = (svc.spec ?? {}) as { type?: string; ports?: { nodePort?: number }[]; allocateLoadBalancerNodePorts?: boolean };
  const ports = Array.isArray(spec.ports) ? spec.ports : [];
  const out: ResourceList = new Map([
    [countName, integerQuantity(1)],
    ["services", integerQuantity(1)],
    ["services.loadbalancers", zeroQuantity()],
    ["services.nodeports", zeroQuantity()],
  ]);
  if (spec.type === "NodePort") out.set("services.nodeports", integerQuantity(ports.length));
  if (spec.type === "LoadBalancer") {
    // With node port allocation turned off only the ports that name a node port count.
    const withNodePorts = spec.allocateLoadBalancerNodePorts === false ? ports.filter((p) => (p?.nodePort ?? 0) !== 0).length : ports.length;
    out.set("services.nodeports", integerQuantity(withNodePorts));
    out.set("services.loadbalancers", integerQuantity(1));
  }
  return out;
}

export const serviceEvaluator: Evaluator = {
  group: "",
  resource: "services",
  handles: (r) => (r.operation === "CREATE" || r.operation === "UPDATE") && r.subresource === "",
  matchingResources: (input) => intersection(input, serviceResources),
  matchesScope: () => false,
  constraints: () => undefined,
  usage: (obj) => serviceUsage(obj),
};
