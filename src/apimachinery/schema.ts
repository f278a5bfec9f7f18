// The structural schema of a kind, as OpenAPI v2 definitions describe it (types, list/map and
// patch markers, group-version-kinds; no descriptions). Built-in types get theirs from the
// generated table (src/encoding/schema/schema-facts.ts); custom resources will bring their own. Field
// validation, strategic merge patch, server-side apply and OpenAPI serving all walk these nodes
// through a lookup they are handed, never through a global table.

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
 * One schema node. `$ref` holds a definition name (e.g. "io.k8s.api.core.v1.PodSpec"), not a JSON
 * pointer; a node with `$ref` may still carry list/patch markers for the place where it is used.
 */
export interface SchemaNode {
  readonly $ref?: string;
  readonly type?: SchemaType;
  /** e.g. "int32", "int64", "double", "byte", "date-time", "int-or-string". */
  readonly format?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly required?: readonly string[];
  readonly items?: SchemaNode;
  readonly additionalProperties?: SchemaNode | boolean;
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

/** Finds a definition by name; a "#/definitions/" prefix must be accepted too. */
export type DefinitionLookup = (name: string) => SchemaNode | undefined;

const definitionsPrefix = "#/definitions/";

/** "#/definitions/io.k8s.api.core.v1.Pod" → "io.k8s.api.core.v1.Pod"; bare names unchanged. */
export function bareDefinitionName(ref: string): string {
  return ref.startsWith(definitionsPrefix) ? ref.slice(definitionsPrefix.length) : ref;
}

/**
 * Follows `$ref` (repeatedly) to the node that has the structure; a node without `$ref` is
 * returned as it is. Throws on an unknown reference or a cycle.
 */
export function resolveNode(lookup: DefinitionLookup, node: SchemaNode): SchemaNode {
  let schema = node;
  for (let depth = 0; schema.$ref !== undefined; depth++) {
    if (depth > 32) throw new Error(`reference cycle at ${schema.$ref}`);
    const target = lookup(schema.$ref);
    if (target === undefined) throw new Error(`unknown schema definition: ${schema.$ref}`);
    schema = target;
  }
  return schema;
}
