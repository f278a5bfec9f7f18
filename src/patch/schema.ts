import type { SchemaNode } from "../apimachinery/schema.js";

/** The OpenAPI v2 schema node the strategic merge patch reads (its markers and structure). */
export type SchemaDef = SchemaNode;

/** ref like "#/definitions/io.k8s.api.core.v1.PodSpec" or bare "io.k8s.api.core.v1.PodSpec". */
export type SchemaResolver = (ref: string) => SchemaDef | undefined;

const DEFINITIONS_PREFIX = "#/definitions/";

/** Looks a ref up under both spellings, so resolvers keyed either way work. */
export function lookupRef(resolver: SchemaResolver, ref: string): SchemaDef | undefined {
  const bare = ref.startsWith(DEFINITIONS_PREFIX) ? ref.slice(DEFINITIONS_PREFIX.length) : ref;
  return resolver(ref) ?? (bare === ref ? resolver(DEFINITIONS_PREFIX + ref) : resolver(bare));
}

/** Follows $ref chains (bounded, in case of a cycle) to the definition that has the structure. */
export function resolveSchema(resolver: SchemaResolver, def: SchemaDef | undefined): SchemaDef | undefined {
  let cur = def;
  for (let hops = 0; cur?.$ref !== undefined && hops < 32; hops++) cur = lookupRef(resolver, cur.$ref);
  return cur;
}

/** How a field is patched: its strategies (comma-separated upstream), merge key, and value schema. */
export interface FieldPatchMeta {
  /** The strategy other than retainKeys ("merge", "replace" or ""). */
  strategy: string;
  retainKeys: boolean;
  mergeKey: string;
  /** Resolved schema of the field's value; undefined when unknown (merge like JSON merge patch). */
  schema: SchemaDef | undefined;
}

const NO_META: FieldPatchMeta = { strategy: "", retainKeys: false, mergeKey: "", schema: undefined };

/**
 * Patch metadata of `key` inside an object described by `parent` (already resolved). Unknown
 * parents, unknown fields and free-form maps yield no strategy, so lists there are atomic.
 * Declared properties win over additionalProperties (which describes map values).
 */
export function fieldMeta(resolver: SchemaResolver, parent: SchemaDef | undefined, key: string): FieldPatchMeta {
  if (!parent) return NO_META;
  let field = parent.properties?.[key];
  if (!field && typeof parent.additionalProperties === "object") field = parent.additionalProperties;
  if (!field) return NO_META;
  const resolved = resolveSchema(resolver, field);
  // Extensions sit beside the $ref on the property; fall back to the referenced definition.
  const raw = field["x-kubernetes-patch-strategy"] ?? resolved?.["x-kubernetes-patch-strategy"] ?? "";
  const parts = raw.split(",").map((s) => s.trim()).filter((s) => s !== "");
  return {
    strategy: parts.find((s) => s !== "retainKeys") ?? "",
    retainKeys: parts.includes("retainKeys"),
    mergeKey: field["x-kubernetes-patch-merge-key"] ?? resolved?.["x-kubernetes-patch-merge-key"] ?? "",
    schema: resolved?.["x-kubernetes-preserve-unknown-fields"] ? undefined : resolved,
  };
}

/** Resolved schema of a list field's elements. */
export function itemSchema(resolver: SchemaResolver, list: SchemaDef | undefined): SchemaDef | undefined {
  const items = resolveSchema(resolver, list?.items);
  return items?.["x-kubernetes-preserve-unknown-fields"] ? undefined : items;
}
