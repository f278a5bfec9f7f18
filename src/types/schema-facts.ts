// Typed accessors for src/types/generated/schemas.json: the structural facts
// (types, formats, required fields, list/map markers, patch strategies,
// group-version-kinds) of every definition of the kube-apiserver 1.34 OpenAPI v2
// document, as produced by scripts/generate-schemas.mjs. No descriptions.

import { lazyTable } from "./generated-table.js";

export type SchemaType = "object" | "array" | "string" | "integer" | "number" | "boolean";

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export interface SchemaUnion {
  readonly discriminator?: string;
  readonly "fields-to-discriminateBy"?: Readonly<Record<string, string>>;
}

/**
 * One schema node. `$ref` holds a definition name (e.g.
 * "io.k8s.api.core.v1.PodSpec"), not a JSON pointer; a node with `$ref` may
 * still carry list/patch markers for the place where it is used.
 */
export interface SchemaFacts {
  readonly $ref?: string;
  readonly type?: SchemaType;
  /** e.g. "int32", "int64", "double", "byte", "date-time", "int-or-string". */
  readonly format?: string;
  readonly properties?: Readonly<Record<string, SchemaFacts>>;
  readonly required?: readonly string[];
  readonly items?: SchemaFacts;
  readonly additionalProperties?: SchemaFacts | boolean;
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
  readonly "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  readonly "x-kubernetes-list-map-keys"?: readonly string[];
  readonly "x-kubernetes-map-type"?: "atomic" | "granular";
  /** e.g. "merge", "retainKeys", "merge,retainKeys", "replace". */
  readonly "x-kubernetes-patch-strategy"?: string;
  readonly "x-kubernetes-patch-merge-key"?: string;
  readonly "x-kubernetes-int-or-string"?: boolean;
  readonly "x-kubernetes-preserve-unknown-fields"?: boolean;
  readonly "x-kubernetes-embedded-resource"?: boolean;
  readonly "x-kubernetes-group-version-kind"?: readonly GroupVersionKind[];
  readonly "x-kubernetes-unions"?: readonly SchemaUnion[];
}

interface SchemasFile {
  readonly definitions: Readonly<Record<string, SchemaFacts>>;
}

const file = lazyTable<SchemasFile>("schemas.json");
let index: { definitionMap: Map<string, SchemaFacts>; byGVK: Map<string, string> } | undefined;
function tables() {
  if (!index) {
    const definitionMap = new Map<string, SchemaFacts>(Object.entries(file().definitions));
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
  return tables().definitionMap.get(stripRefPrefix(name));
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
  let schema: SchemaFacts = typeof ref === "string" ? { $ref: ref } : ref;
  for (let depth = 0; schema.$ref !== undefined; depth++) {
    if (depth > 32) throw new Error(`reference cycle at ${schema.$ref}`);
    const target = tables().definitionMap.get(stripRefPrefix(schema.$ref));
    if (target === undefined) throw new Error(`unknown schema definition: ${schema.$ref}`);
    schema = target;
  }
  return schema;
}

/**
 * The schema node of property `name` of an object schema (the object's `$ref`
 * is followed; the property node is returned as it is, since its list/patch
 * markers belong to it: pass it to resolveRef for the referenced type).
 */
export function propertySchema(schema: string | SchemaFacts, name: string): SchemaFacts | undefined {
  return resolveRef(schema).properties?.[name];
}

function stripRefPrefix(ref: string): string {
  return ref.startsWith("#/definitions/") ? ref.slice("#/definitions/".length) : ref;
}
