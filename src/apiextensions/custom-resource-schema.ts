// Local adapter for the schema helper's module (src/apiextensions/schema/, branch wip-crd-schema):
// the same three functions with the contract's signatures — prune, applyDefaults, validateObject —
// in a minimal form (the common OpenAPI keywords with upstream's messages). Serving calls only these
// names; when the schema branch is merged, this file re-exports from ./schema/index.js instead.
import { duplicate, invalid, notSupported, required, tooLong, tooMany, type FieldError } from "../apimachinery/validation.js";

/** The OpenAPI v3 schema of one CRD version (the subset serving reads). */
export interface JSONSchemaProps {
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  pattern?: string;
  uniqueItems?: boolean;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-list-type"?: string;
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: string;
  "x-kubernetes-validations"?: unknown[];
  [k: string]: unknown;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** Removes fields the schema does not declare; returns their paths (`.spec.foo`). */
export function prune(obj: unknown, schema: JSONSchemaProps, opts: { isResourceRoot: boolean }): string[] {
  const out: string[] = [];
  pruneAt(obj, schema, "", opts.isResourceRoot, out);
  return out;
}

function pruneAt(v: unknown, s: JSONSchemaProps | undefined, path: string, root: boolean, out: string[]): void {
  if (!s || s["x-kubernetes-preserve-unknown-fields"]) return;
  if (Array.isArray(v)) {
    v.forEach((x, i) => pruneAt(x, s.items, `${path}[${i}]`, false, out));
    return;
  }
  if (!isObj(v)) return;
  const embedded = root || s["x-kubernetes-embedded-resource"] === true;
  for (const k of Object.keys(v)) {
    if (embedded && (k === "apiVersion" || k === "kind" || k === "metadata")) continue;
    const p = s.properties?.[k] ?? (isObj(s.additionalProperties) ? s.additionalProperties : undefined);
    if (p) pruneAt(v[k], p, `${path}.${k}`, false, out);
    else if (s.additionalProperties !== true) {
      out.push(`${path}.${k}`);
      delete v[k];
    }
  }
}

/** Fills `default`s in place, as structural defaulting does (deepest first within each object). */
export function applyDefaults(obj: unknown, schema: JSONSchemaProps): void {
  if (Array.isArray(obj)) {
    if (schema.items) for (const x of obj) applyDefaults(x, schema.items);
    return;
  }
  if (!isObj(obj)) return;
  for (const [k, p] of Object.entries(schema.properties ?? {})) {
    if (obj[k] === undefined && p.default !== undefined) obj[k] = structuredClone(p.default);
    if (obj[k] !== undefined && obj[k] !== null) applyDefaults(obj[k], p);
  }
  if (isObj(schema.additionalProperties)) for (const k of Object.keys(obj)) applyDefaults(obj[k], schema.additionalProperties);
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  if (typeof v === "object") return "object";
  return typeof v;
}

function matchesType(v: unknown, t: string): boolean {
  const actual = typeName(v);
  return actual === t || (t === "number" && actual === "integer");
}

/** Every violation of the schema's keywords, with upstream's texts and field paths. */
export function validateObject(obj: unknown, schema: JSONSchemaProps, opts: { path?: string } = {}): FieldError[] {
  const errs: FieldError[] = [];
  validateAt(obj, schema, opts.path ?? "", errs, true);
  return errs;
}

function validateAt(v: unknown, s: JSONSchemaProps, path: string, errs: FieldError[], root = false): void {
  const where = path || "<root>";
  if (v === null) {
    if (!s.nullable && s.type && !root) errs.push(invalid(path, "null", `${where} in body must be of type ${s.type}: "null"`));
    return;
  }
  if (s["x-kubernetes-int-or-string"]) {
    if (typeof v !== "string" && !(typeof v === "number" && Number.isInteger(v))) errs.push(invalid(path, typeName(v), `${where} in body must be of type integer,string: ${JSON.stringify(typeName(v))}`));
  } else if (s.type && !matchesType(v, s.type)) {
    errs.push(invalid(path, typeName(v), `${where} in body must be of type ${s.type}: ${JSON.stringify(typeName(v))}`));
    return;
  }
  if (s.enum && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    errs.push(notSupported(path, v, s.enum.map((e) => (typeof e === "string" ? e : JSON.stringify(e)))));
  }
  if (typeof v === "number") {
    if (s.minimum !== undefined && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum)) errs.push(invalid(path, v, `${where} in body should be greater than ${s.exclusiveMinimum ? "" : "or equal to "}${s.minimum}`));
    if (s.maximum !== undefined && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum)) errs.push(invalid(path, v, `${where} in body should be less than ${s.exclusiveMaximum ? "" : "or equal to "}${s.maximum}`));
  }
  if (typeof v === "string") {
    const len = [...v].length;
    if (s.maxLength !== undefined && len > s.maxLength) errs.push(tooLong(path, s.maxLength));
    if (s.minLength !== undefined && len < s.minLength) errs.push(invalid(path, v, `${where} in body should be at least ${s.minLength} chars long`));
    if (s.pattern !== undefined && !new RegExp(s.pattern, "u").test(v)) errs.push(invalid(path, v, `${where} in body should match '${s.pattern}'`));
  }
  if (Array.isArray(v)) {
    if (s.maxItems !== undefined && v.length > s.maxItems) errs.push(tooMany(path, v.length, s.maxItems));
    if (s.minItems !== undefined && v.length < s.minItems) errs.push(invalid(path, v.length, `${where} in body should have at least ${s.minItems} items`));
    if (s.uniqueItems) {
      const seen = new Set<string>();
      v.forEach((x, i) => {
        const k = JSON.stringify(x);
        if (seen.has(k)) errs.push(duplicate(`${path}[${i}]`, x));
        seen.add(k);
      });
    }
    if (s.items) v.forEach((x, i) => validateAt(x, s.items!, `${path}[${i}]`, errs));
    return;
  }
  if (isObj(v)) {
    const n = Object.keys(v).length;
    if (s.maxProperties !== undefined && n > s.maxProperties) errs.push(tooMany(path, n, s.maxProperties));
    if (s.minProperties !== undefined && n < s.minProperties) errs.push(invalid(path, n, `${where} in body should have at least ${s.minProperties} properties`));
    for (const r of s.required ?? []) if (v[r] === undefined) errs.push(required(join(path, r)));
    for (const [k, x] of Object.entries(v)) {
      if (root && (k === "metadata" || k === "apiVersion" || k === "kind")) continue;
      const p = s.properties?.[k] ?? (isObj(s.additionalProperties) ? s.additionalProperties : undefined);
      if (p) validateAt(x, p, join(path, k), errs);
    }
  }
}
