// The object count evaluator every namespaced type gets (upstream: generic.NewObjectCountEvaluator):
// one `count/<resource>[.<group>]` per object in storage, charged on create only. The four
// types quota counted before object counts existed keep their legacy names as aliases
// (configmaps, secrets, replicationcontrollers, resourcequotas).
import { integerQuantity, type ResourceList } from "../resource-list.js";
import { intersection, objectCountName, type Evaluator } from "./evaluator.js";

export function objectCountEvaluator(group: string, resource: string, alias?: string): Evaluator {
  const names = [objectCountName(group, resource), ...(alias ? [alias] : [])];
  return {
    group,
    resource,
    // A create of a subresource (pods/eviction, serviceaccounts/token) stores no object of the type.
    handles: (r) => r.operation === "CREATE" && r.subresource === "",
    matchingResources: (input) => intersection(input, names),
    matchesScope: () => false,
    constraints: () => undefined,
    usage(): ResourceList {
      return new Map(names.map((n) => [n, integerQuantity(1)]));
    },
  };
}
