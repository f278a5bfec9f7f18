// The OpenAPI v3 schema of a CustomResourceDefinition version (apiextensions.k8s.io/v1
// JSONSchemaProps), as it arrives in JSON. Only what the CRD API accepts is modelled; the fields
// upstream rejects (id, $ref, patternProperties, …) are kept so validation can name them.

export interface ValidationRule {
  rule?: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface JSONSchemaProps {
  id?: string;
  $schema?: string;
  $ref?: string;
  description?: string;
  type?: string;
  format?: string;
  title?: string;
  default?: unknown;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  additionalItems?: JSONSchemaProps | boolean;
  definitions?: Record<string, JSONSchemaProps>;
  externalDocs?: { description?: string; url?: string };
  example?: unknown;
  nullable?: boolean;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-list-type"?: string;
  "x-kubernetes-map-type"?: string;
  "x-kubernetes-validations"?: ValidationRule[];
}

export type JSONValue = null | boolean | number | string | JSONValue[] | { [k: string]: JSONValue };

export function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** The single schema of `items` (a tuple `items` array has none, as upstream's structural view). */
export function itemsSchema(s: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  const it = s?.items;
  if (it === undefined || Array.isArray(it)) return undefined;
  return it;
}

/**
 * The structural view of additionalProperties (upstream StructuralOrBool): undefined when absent;
 * `{ schema }` otherwise (`true` and `false` have no schema).
 */
export function additionalPropertiesOf(s: JSONSchemaProps | undefined): { schema?: JSONSchemaProps } | undefined {
  const ap = s?.additionalProperties;
  if (ap === undefined || ap === null) return undefined;
  if (typeof ap === "boolean") return {};
  return { schema: ap };
}

export function hasOwn(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

export function propertyOf(s: JSONSchemaProps | undefined, k: string): JSONSchemaProps | undefined {
  const p = s?.properties;
  return p && hasOwn(p, k) ? p[k] : undefined;
}

// Field paths as upstream's field.Path prints them.
export function child(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}
export function key(path: string, k: string): string {
  return `${path}[${k}]`;
}
export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}

/** A deep copy of a JSON value. */
export function deepCopy<T>(v: T): T {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map((x) => deepCopy(x)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = deepCopy(x);
  return out as T;
}

/** Deep equality of JSON values (reflect.DeepEqual on decoded JSON). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], bb[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  if (ak.length !== Object.keys(bo).length) return false;
  for (const k of ak) if (!hasOwn(bo, k) || !jsonEqual(ao[k], bo[k])) return false;
  return true;
}
