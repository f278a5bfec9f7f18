// Typed accessors for src/types/generated/schemas.json: the structural facts
// (types, formats, required fields, list/map markers, patch strategies,
// group-version-kinds) of every definition of the kube-apiserver 1.34 OpenAPI v2
// document, with the enum values of enums.json laid over them, as produced by
// scripts/generate-schemas.mjs. No descriptions.

import { bareDefinitionName, resolveNode, type SchemaNode } from "../../apimachinery/schema.js";
import { withEnums, type EnumOverlay } from "./enum-overlay.js";
import { lazyTable } from "./generated-table.js";

export type { GroupVersionKind, SchemaType, SchemaUnion } from "../../apimachinery/schema.js";
/** A node of the generated built-in schemas (the shape field validation, patch and apply walk). */
export type SchemaFacts = SchemaNode;

interface SchemasFile {
  readonly definitions: Readonly<Record<string, SchemaFacts>>;
}

interface EnumsFile {
  readonly definitions: Readonly<Record<string, EnumOverlay>>;
}

const file = lazyTable<SchemasFile>("schemas.json");
const enumsFile = lazyTable<EnumsFile>("enums.json");
let index: { definitionMap: Map<string, SchemaFacts>; byGVK: Map<string, string> } | undefined;
function tables() {
  if (!index) {
    const enums = enumsFile().definitions;
    const definitionMap = new Map<string, SchemaFacts>(
      Object.entries(file().definitions).map(([name, schema]) => [name, enums[name] ? withEnums(schema, enums[name], name) : schema]),
    );
    const byGVK = new Map<string, string>();
    for (const [name, schema] of definitionMap) {
      for (const gvk of schema["x-kubernetes-group-version-kind"] ?? []) {
        const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
        // meta/v1 types (DeleteOptions, WatchEvent, …) are registered in every
        // group-version; a group's own type wins over them.
        const prev = byGVK.get(key);
        if (prev === undefined || (prev.startsWith("io.k8s.apimachinery.") && !name.startsWith("io.k8s.apimachinery."))) {
          byGVK.set(key, name);
        }
      }
    }
    index = { definitionMap, byGVK };
  }
  return index;
}

/** Every definition name, sorted. */
export function definitionNames(): readonly string[] {
  return [...tables().definitionMap.keys()];
}

/** The definition with this name (e.g. "io.k8s.api.core.v1.Pod"; a "#/definitions/" prefix is accepted). */
export function getDefinition(name: string): SchemaFacts | undefined {
  return tables().definitionMap.get(bareDefinitionName(name));
}

/** Name of the definition of a group-version-kind (core group is ""), e.g. ("apps","v1","Deployment") → "io.k8s.api.apps.v1.Deployment". */
export function definitionNameForGVK(group: string, version: string, kind: string): string | undefined {
  return tables().byGVK.get(`${group}/${version}/${kind}`);
}

/** The definition of a group-version-kind (core group is ""). */
export function definitionForGVK(group: string, version: string, kind: string): SchemaFacts | undefined {
  const name = definitionNameForGVK(group, version, kind);
  return name === undefined ? undefined : tables().definitionMap.get(name);
}

/**
 * Follows `$ref` (repeatedly) to the referenced definition. A reference may be
 * given as a definition name, a "#/definitions/…" pointer, or a schema node;
 * a node without `$ref` is returned as it is. Throws on an unknown reference.
 */
export function resolveRef(ref: string | SchemaFacts): SchemaFacts {
  return resolveNode(getDefinition, typeof ref === "string" ? { $ref: ref } : ref);
}

/**
 * The schema node of property `name` of an object schema (the object's `$ref`
 * is followed; the property node is returned as it is, since its list/patch
 * markers belong to it: pass it to resolveRef for the referenced type).
 */
export function propertySchema(schema: string | SchemaFacts, name: string): SchemaFacts | undefined {
  return resolveRef(schema).properties?.[name];
}

