// Structural defaulting (upstream pkg/apiserver/schema/defaulting): `default` values applied in
// place, on create, update and on read from storage. Nulls of non-nullable fields without a
// default are dropped first; a null of a non-nullable field with a default is replaced by it.
import { additionalPropertiesOf, deepCopy, hasOwn, isObject, itemsSchema, propertyOf, type JSONSchemaProps } from "./types.js";

function isNonNullableNull(x: unknown, s: JSONSchemaProps | undefined): boolean {
  return x === null && s !== undefined && s.nullable !== true;
}

function schemaForField(k: string, s: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  if (s === undefined) return undefined;
  const p = propertyOf(s, k);
  if (p !== undefined) return p;
  return additionalPropertiesOf(s)?.schema;
}

/** Upstream PruneNonNullableNullsWithoutDefaults. */
export function pruneNonNullableNullsWithoutDefaults(x: unknown, s: JSONSchemaProps | undefined): void {
  if (Array.isArray(x)) {
    const items = s ? itemsSchema(s) : undefined;
    for (const v of x) pruneNonNullableNullsWithoutDefaults(v, items);
    return;
  }
  if (!isObject(x)) return;
  for (const k of Object.keys(x)) {
    const fs = schemaForField(k, s);
    const v = x[k];
    if (v === null && fs !== undefined && fs.nullable !== true && fs.default === undefined) delete x[k];
    else pruneNonNullableNullsWithoutDefaults(v, fs);
  }
}

/** Upstream defaulting.Default: applies `default` of declared properties, items and additionalProperties. */
export function defaultNode(x: unknown, s: JSONSchemaProps | undefined): void {
  if (s === undefined) return;
  if (Array.isArray(x)) {
    const items = itemsSchema(s);
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], items)) x[i] = deepCopy(items!.default ?? null);
      defaultNode(x[i], items);
    }
    return;
  }
  if (!isObject(x)) return;
  const props = s.properties ?? {};
  for (const k of Object.keys(props)) {
    const prop = props[k]!;
    if (prop.default === undefined || prop.default === null) continue;
    if (!hasOwn(x, k) || isNonNullableNull(x[k], prop)) x[k] = deepCopy(prop.default);
  }
  const ap = additionalPropertiesOf(s);
  for (const k of Object.keys(x)) {
    const prop = propertyOf(s, k);
    if (prop !== undefined) defaultNode(x[k], prop);
    else if (ap) {
      if (isNonNullableNull(x[k], ap.schema)) x[k] = deepCopy(ap.schema!.default ?? null);
      defaultNode(x[k], ap.schema);
    }
  }
}

/**
 * Defaulting of a custom object in place, as upstream's custom resource defaulter: non-nullable
 * nulls without a default are removed, then defaults are applied.
 */
export function applyDefaults(obj: unknown, schema: JSONSchemaProps | undefined): void {
  if (schema === undefined) return;
  pruneNonNullableNullsWithoutDefaults(obj, schema);
  defaultNode(obj, schema);
}
