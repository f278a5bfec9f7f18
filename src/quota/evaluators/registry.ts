// Which evaluator counts a group-resource (upstream: the core evaluators plus an object count
// evaluator made on demand for any other type, and the ignored resources).
import { objectCountEvaluator } from "./object-count.js";
import { podEvaluator } from "./pods.js";
import { pvcEvaluator } from "./persistentvolumeclaims.js";
import { serviceEvaluator } from "./services.js";
import { resourceClaimEvaluator } from "./resourceclaims.js";
import type { Evaluator } from "./evaluator.js";

/** Legacy quota names of the object counts that predate count/<resource>. */
const legacyAliases: Record<string, string> = {
  configmaps: "configmaps",
  secrets: "secrets",
  replicationcontrollers: "replicationcontrollers",
  resourcequotas: "resourcequotas",
};

const special: Record<string, Evaluator> = {
  pods: podEvaluator,
  services: serviceEvaluator,
  persistentvolumeclaims: pvcEvaluator,
};

/** Types quota never counts (upstream's DefaultIgnoredResources). */
export function isIgnoredResource(group: string, resource: string): boolean {
  return group === "" && resource === "events";
}

const made = new Map<string, Evaluator>();

/** The evaluator of a group-resource (undefined for ignored types). */
export function evaluatorFor(group: string, resource: string): Evaluator | undefined {
  if (isIgnoredResource(group, resource)) return undefined;
  if (group === "" && special[resource]) return special[resource];
  if (group === resourceClaimEvaluator.group && resource === resourceClaimEvaluator.resource) return resourceClaimEvaluator;
  const key = `${resource}.${group}`;
  let e = made.get(key);
  if (!e) {
    e = objectCountEvaluator(group, resource, group === "" ? legacyAliases[resource] : undefined);
    made.set(key, e);
  }
  return e;
}
