// ResourceClaims (upstream: pkg/quota/v1/evaluator/core/resource_claims.go): count/resourceclaims
// and the devices a claim may get per device class, `<class>.deviceclass.resource.k8s.io/devices`.
// A request for all devices counts as the most one claim can be allocated (32); a request with
// alternatives (firstAvailable) counts the largest alternative of each class. Requests are read
// in resource.k8s.io/v1's shape (exactly) and in the beta shape (fields on the request).
import type { KObject } from "../../apimachinery/object.js";
import { add, cmp, integerQuantity, type Quantity, type ResourceList } from "../resource-list.js";
import { objectCountName, type Evaluator } from "./evaluator.js";

const countName = objectCountName("resource.k8s.io", "resourceclaims");
const perClassSuffix = ".deviceclass.resource.k8s.io/devices";
/** resourceapi.AllocationResultsMaxSize: the most devices one claim can be given. */
const allocationResultsMaxSize = 32;

type DeviceRequest = { deviceClassName?: string; allocationMode?: string; count?: number };
type Request = DeviceRequest & { exactly?: DeviceRequest; firstAvailable?: DeviceRequest[] };

function devices(r: DeviceRequest): number {
  switch (r.allocationMode ?? "ExactCount") {
    case "ExactCount":
      return typeof r.count === "number" ? r.count : 1;
    case "All":
      return allocationResultsMaxSize;
    default:
      return 0; // a mode this version does not know counts for nothing
  }
}

function charge(into: ResourceList, name: string, q: Quantity): void {
  into.set(name, into.has(name) ? add(into.get(name)!, q) : q);
}

export function claimUsage(claim: KObject): ResourceList {
  const out: ResourceList = new Map([[countName, integerQuantity(1)]]);
  const requests = ((claim.spec as { devices?: { requests?: Request[] } } | undefined)?.devices?.requests ?? []) as Request[];
  for (const req of Array.isArray(requests) ? requests : []) {
    if (Array.isArray(req.firstAvailable) && req.firstAvailable.length > 0) {
      const worst = new Map<string, Quantity>();
      for (const sub of req.firstAvailable) {
        const name = `${sub.deviceClassName ?? ""}${perClassSuffix}`;
        const q = integerQuantity(devices(sub));
        const cur = worst.get(name);
        if (!cur || cmp(q, cur) > 0) worst.set(name, q);
      }
      for (const [name, q] of worst) charge(out, name, q);
      continue;
    }
    const exact = req.exactly ?? req;
    charge(out, `${exact.deviceClassName ?? ""}${perClassSuffix}`, integerQuantity(devices(exact)));
  }
  return out;
}

export const resourceClaimEvaluator: Evaluator = {
  group: "resource.k8s.io",
  resource: "resourceclaims",
  handles: (r) => r.subresource === "" && (r.operation === "CREATE" || r.operation === "UPDATE"),
  matchingResources: (items) => items.filter((i) => i === countName || i.endsWith(perClassSuffix)),
  matchesScope: () => false,
  constraints: () => undefined,
  usage: (obj) => claimUsage(obj),
};
