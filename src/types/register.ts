// Built-in types as the registry serves them: each upstream fact joined with its strategy and
// deletion policy. The composition root registers them at start.
import type { ResourceType } from "../registry/resource-type.js";
import { TypeRegistry } from "../registry/type-registry.js";
import { builtinResources, type ResourceFacts } from "./builtin-resources.js";
import { gracePeriodPolicyFor } from "./graceful-deletion.js";
import { strategyFor } from "./strategies.js";

const virtualResources = new Set([
  "tokenreviews",
  "subjectaccessreviews",
  "selfsubjectreviews",
  "selfsubjectaccessreviews",
  "selfsubjectrulesreviews",
  "localsubjectaccessreviews",
  "bindings",
]);

export function builtinResourceType(f: ResourceFacts): ResourceType {
  const keyGroup = f.group ? `${f.group}/` : "";
  return {
    facts: f,
    group: f.group,
    version: f.version,
    resource: f.resource,
    kind: f.kind,
    listKind: f.listKind ?? `${f.kind}List`,
    namespaced: f.namespaced,
    gr: { group: f.group, resource: f.resource },
    apiVersion: f.group ? `${f.group}/${f.version}` : f.version,
    keyPrefix: `/registry/${keyGroup}${f.resource}/`,
    strategy: strategyFor(f.group, f.resource),
    hasStatus: f.subresources.some((s) => s.name === "status"),
    verbs: new Set(f.verbs),
    virtual: virtualResources.has(f.resource) && !f.verbs.includes("get"),
    gracePeriod: gracePeriodPolicyFor(f.group, f.resource),
  };
}

/** Registers every built-in type `enabled` accepts (after --runtime-config). */
export function registerBuiltinTypes(types: TypeRegistry, enabled: (f: ResourceFacts) => boolean): TypeRegistry {
  for (const f of builtinResources) if (enabled(f)) types.add(builtinResourceType(f));
  return types;
}

/** A registry of the built-in types `enabled` accepts (tests and tools). */
export function builtinTypeRegistry(enabled: (f: ResourceFacts) => boolean): TypeRegistry {
  return registerBuiltinTypes(new TypeRegistry(), enabled);
}
