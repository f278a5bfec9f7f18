// Typed accessors for src/types/generated/schemas.json: the structural facts
// (types, formats, required fields, list/map markers, patch strategies,
// group-version-kinds) of every definition of the kube-apiserver 1.34 OpenAPI v2
// document, with the enum values of enums.json laid over them, as produced by
// scripts/generate-schemas.mjs. No descriptions.

import { bareDefinitionName, resolveNode, type GroupVersionKind, type SchemaNode } from "../../apimachinery/schema.js";
import { withEnums, type EnumOverlay } from "./enum-overlay.js";
import { lazyTable, lazyText } from "./generated-table.js";

export type { GroupVersionKind, SchemaType, SchemaUnion } from "../../apimachinery/schema.js";
/** A node of the generated built-in schemas (the shape field validation, patch and apply walk). */
export type SchemaFacts = SchemaNode;

interface EnumsFile {
  readonly definitions: Readonly<Record<string, EnumOverlay>>;
}

const schemasText = lazyText("schemas.json");
const enumsFile = lazyTable<EnumsFile>("enums.json");
const gvkKey = '"x-kubernetes-group-version-kind":';

/**
 * Every definition's JSON text by name, and the group-version-kinds' definitions. A request
 * needs a handful of the 730 definitions: each is parsed (and its enums laid over it) when first
 * asked for, not all at once (~3 ms of a start, which writes two objects that need theirs).
 */
interface Index {
  readonly text: ReadonlyMap<string, string>;
  readonly parsed: Map<string, SchemaFacts>;
  readonly byGVK: ReadonlyMap<string, string>;
}
let index: Index | undefined;

function tables(): Index {
  if (index) return index;
  const text = new Map<string, string>();
  const byGVK = new Map<string, string>();
  // scripts/generate-schemas.mjs writes one definition a line, `"<name>":<schema>,` (keys
  // sorted, $refs not inlined, so a schema's own group-version-kinds are its only ones).
  for (const line of schemasText().split("\n")) {
    if (!line.startsWith('"') || line.startsWith('"definitions"')) continue;
    const colon = line.indexOf('":');
    const name = JSON.parse(line.slice(0, colon + 1)) as string;
    const schema = line.slice(colon + 2, line.endsWith(",") ? -1 : undefined);
    text.set(name, schema);
    const at = schema.indexOf(gvkKey);
    if (at < 0) continue;
    const from = at + gvkKey.length;
    for (const gvk of JSON.parse(schema.slice(from, schema.indexOf("]", from) + 1)) as GroupVersionKind[]) {
      const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
      // meta/v1 types (DeleteOptions, WatchEvent, …) are registered in every
      // group-version; a group's own type wins over them.
      const prev = byGVK.get(key);
      if (prev === undefined || (prev.startsWith("io.k8s.apimachinery.") && !name.startsWith("io.k8s.apimachinery."))) {
        byGVK.set(key, name);
      }
    }
  }
  return (index = { text, parsed: new Map(), byGVK });
}

/** The parsed definition, with its enum values laid over it. */
function definition(name: string): SchemaFacts | undefined {
  const t = tables();
  let schema = t.parsed.get(name);
  if (schema !== undefined) return schema;
  const json = t.text.get(name);
  if (json === undefined) return undefined;
  schema = JSON.parse(json) as SchemaFacts;
  const overlay = enumsFile().definitions[name];
  if (overlay) schema = withEnums(schema, overlay, name);
  t.parsed.set(name, schema);
  return schema;
}

/** Every definition name, sorted. */
export function definitionNames(): readonly string[] {
  return [...tables().text.keys()];
}

/** The definition with this name (e.g. "io.k8s.api.core.v1.Pod"; a "#/definitions/" prefix is accepted). */
export function getDefinition(name: string): SchemaFacts | undefined {
  return definition(bareDefinitionName(name));
}

/** Name of the definition of a group-version-kind (core group is ""), e.g. ("apps","v1","Deployment") → "io.k8s.api.apps.v1.Deployment". */
export function definitionNameForGVK(group: string, version: string, kind: string): string | undefined {
  return tables().byGVK.get(`${group}/${version}/${kind}`);
}

/** The definition of a group-version-kind (core group is ""). */
export function definitionForGVK(group: string, version: string, kind: string): SchemaFacts | undefined {
  const name = definitionNameForGVK(group, version, kind);
  return name === undefined ? undefined : definition(name);
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

