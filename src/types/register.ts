// Built-in types as the registry serves them: each upstream fact declared with its strategy,
// schema, printer, scale paths, field selectors and deletion policy. The composition root
// registers them at start.
import { defineResourceType, type ResourceType, type ResourceTypeDeclaration, type ScaleDeclaration } from "../registry/resource-type.js";
import { eventsV1Conversion } from "./event-conversion.js";
import { builtinDeprecation } from "./deprecations.js";
import type { TypeSchema } from "../registry/type-schema.js";
import { TypeRegistry } from "../registry/type-registry.js";
import { printerFor } from "../printers/index.js";
import { builtinResources, type ResourceFacts } from "./builtin-resources.js";
import { gracePeriodPolicyFor } from "./graceful-deletion.js";
import { definitionNameForGVK, getDefinition } from "../encoding/schema/schema-facts.js";
import { storageGVK } from "./storage-version.js";
import { strategyFor, type StrategyContributions } from "./strategies.js";

const virtualResources = new Set([
  "tokenreviews",
  "subjectaccessreviews",
  "selfsubjectreviews",
  "selfsubjectaccessreviews",
  "selfsubjectrulesreviews",
  "localsubjectaccessreviews",
  "bindings",
]);

/** The generated kube-apiserver 1.34 definitions (loaded on first use, not at start). */
export const builtinSchema: TypeSchema = { definition: getDefinition, nameOf: definitionNameForGVK };

/** Workloads' /scale: spec.replicas, status.replicas and the pod selector. */
const workloadScale: ScaleDeclaration = { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".spec.selector" };
const scaleByGroupResource: Readonly<Record<string, ScaleDeclaration>> = {
  "apps/deployments": workloadScale,
  "apps/replicasets": workloadScale,
  "apps/statefulsets": workloadScale,
  "/replicationcontrollers": workloadScale,
};

/**
 * Types stored as another group's kind (upstream's cohabitating resources, storage-version.ts):
 * under that kind's key prefix, converted field by field on the way in and out.
 */
const storedAsAnother: Readonly<Record<string, Pick<ResourceTypeDeclaration, "keyPrefix" | "conversion">>> = {
  "events.k8s.io/events": { keyPrefix: "/registry/events/", conversion: eventsV1Conversion },
};

export function builtinResourceType(f: ResourceFacts, contributed: StrategyContributions = {}): ResourceType {
  const strategy = strategyFor(f.group, f.resource, contributed);
  return defineResourceType({
    group: f.group,
    version: f.version,
    resource: f.resource,
    kind: f.kind,
    listKind: f.listKind,
    namespaced: f.namespaced,
    verbs: f.verbs,
    singularName: f.singularName,
    shortNames: f.shortNames,
    categories: f.categories,
    subresources: f.subresources,
    scale: f.subresources.some((s) => s.name === "scale") ? scaleByGroupResource[`${f.group}/${f.resource}`] : undefined,
    preferredVersion: f.preferredVersion,
    storageVersion: storageGVK(f),
    strategy,
    schema: builtinSchema,
    printer: printerFor(f.group, f.resource),
    selectableFields: strategy.selectableFields,
    protobuf: true,
    strategicMergePatch: true,
    virtual: virtualResources.has(f.resource) && !f.verbs.includes("get"),
    gracePeriod: gracePeriodPolicyFor(f.group, f.resource),
    ...storedAsAnother[`${f.group}/${f.resource}`],
    deprecation: builtinDeprecation(f.group, f.version, f.kind),
  });
}

/**
 * Registers every built-in type `enabled` accepts (after --runtime-config). `contributed` holds
 * the strategies features own (CRDs, webhook configurations, admission policies); without them
 * those types get the default strategy, which is enough for tests that never write them.
 */
export function registerBuiltinTypes(types: TypeRegistry, enabled: (f: ResourceFacts) => boolean, contributed: StrategyContributions = {}): TypeRegistry {
  for (const f of builtinResources) if (enabled(f)) types.add(builtinResourceType(f, contributed));
  return types;
}

/** A registry of the built-in types `enabled` accepts (the server, tests and tools). */
export function builtinTypeRegistry(enabled: (f: ResourceFacts) => boolean, contributed: StrategyContributions = {}): TypeRegistry {
  return registerBuiltinTypes(new TypeRegistry(), enabled, contributed);
}
