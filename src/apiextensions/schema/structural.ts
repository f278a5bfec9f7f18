// Structural-schema rules of a CRD version's openAPIV3Schema (upstream pkg/apiserver/schema
// NewStructural, ValidateStructural = validateStructuralInvariants + validateStructuralCompleteness)
// plus the per-node OpenAPI checks of CRD validation (unsupported keywords, x-kubernetes-*
// placement, list/map types). Errors are sorted by their text, as upstream does.
import {
  forbidden,
  formatFieldError,
  invalid,
  notSupported,
  required,
  type FieldError,
} from "../../apimachinery/validation.js";
import { re2 } from "../../cel/regex.js";
import { child, index, key, type JSONSchemaProps } from "./types.js";

type Level = "root" | "item" | "field";

const metaFields = new Set(["metadata", "kind", "apiVersion"]);

/** NewStructural's conversion errors (a schema that cannot become structural at all). */
export function newStructuralError(s: JSONSchemaProps | undefined): string | undefined {
  if (!s) return undefined;
  if (s.id) return "OpenAPIV3Schema 'id' is not supported";
  if (s.$schema) return "OpenAPIV3Schema 'schema' is not supported";
  if (s.$ref) return "OpenAPIV3Schema '$ref' is not supported";
  if (s.patternProperties && Object.keys(s.patternProperties).length > 0) return "OpenAPIV3Schema 'patternProperties' is not supported";
  if (s.dependencies && Object.keys(s.dependencies).length > 0) return "OpenAPIV3Schema 'dependencies' is not supported";
  if (s.additionalItems !== undefined) return "OpenAPIV3Schema 'additionalItems' is not supported";
  if (s.definitions && Object.keys(s.definitions).length > 0) return "OpenAPIV3Schema 'definitions' is not supported";
  if (s["x-kubernetes-preserve-unknown-fields"] === false) return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  if (Array.isArray(s.items)) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  for (const sub of [s.items as JSONSchemaProps | undefined, s.not, ...(s.allOf ?? []), ...(s.anyOf ?? []), ...(s.oneOf ?? []), ...Object.values(s.properties ?? {}), typeof s.additionalProperties === "object" ? s.additionalProperties : undefined]) {
    const e = newStructuralError(sub ?? undefined);
    if (e) return e;
  }
  return undefined;
}

function isIntOrStringAnyOf(anyOf: JSONSchemaProps[] | undefined): boolean {
  return (
    anyOf !== undefined &&
    anyOf.length === 2 &&
    isOnlyType(anyOf[0]!, "integer") &&
    isOnlyType(anyOf[1]!, "string")
  );
}
function isOnlyType(s: JSONSchemaProps, t: string): boolean {
  return Object.keys(s).length === 1 && s.type === t;
}

function invariants(s: JSONSchemaProps | undefined, lvl: Level, p: string): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  const items = Array.isArray(s.items) ? undefined : s.items;
  if (s.type === "array" && !items) errs.push(required(child(p, "items"), "must be specified"));
  errs.push(...invariants(items, "item", child(p, "items")));
  for (const [k, v] of Object.entries(s.properties ?? {})) errs.push(...invariants(v, "field", key(child(p, "properties"), k)));
  if (s.additionalProperties !== undefined && s.additionalProperties !== null) {
    if (lvl === "root") errs.push(forbidden(child(p, "additionalProperties"), "must not be used at the root"));
    if (typeof s.additionalProperties === "object") errs.push(...invariants(s.additionalProperties, "field", child(p, "additionalProperties")));
  }
  const intOrString = s["x-kubernetes-int-or-string"] === true;
  const preserve = s["x-kubernetes-preserve-unknown-fields"] === true;
  const embedded = s["x-kubernetes-embedded-resource"] === true;
  if (intOrString && preserve) errs.push(invalid(child(p, "x-kubernetes-preserve-unknown-fields"), true, "must be false if x-kubernetes-int-or-string is true"));
  if (intOrString && embedded) errs.push(invalid(child(p, "x-kubernetes-embedded-resource"), true, "must be false if x-kubernetes-int-or-string is true"));

  const skipAnyOf = isIntOrStringAnyOf(s.anyOf);
  const skipFirstAllOfAnyOf = (s.allOf?.length ?? 0) >= 1 && isIntOrStringAnyOf(s.allOf![0]!.anyOf);
  errs.push(...valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, lvl, p));

  const checkMetadata = lvl === "root" || embedded;
  const type = s.type ?? "";
  if (embedded && type !== "object") {
    if (type === "") errs.push(required(child(p, "type"), "must be object if x-kubernetes-embedded-resource is true"));
    else errs.push(invalid(child(p, "type"), type, "must be object if x-kubernetes-embedded-resource is true"));
  } else if (type === "" && !intOrString && !preserve) {
    const msg = lvl === "root" ? "must not be empty at the root" : lvl === "item" ? "must not be empty for specified array items" : "must not be empty for specified object fields";
    errs.push(required(child(p, "type"), msg));
  }
  if (embedded && s.additionalProperties !== undefined && s.additionalProperties !== null) {
    errs.push(forbidden(child(p, "additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"));
  }
  if (lvl === "root" && type !== "" && type !== "object") errs.push(invalid(child(p, "type"), type, "must be object at the root"));
  const props = s.properties ?? {};
  if (checkMetadata && Object.prototype.hasOwnProperty.call(props, "kind") && props.kind!.type !== "string") {
    errs.push(invalid(child(key(child(p, "properties"), "kind"), "type"), props.kind!.type ?? "", "must be string"));
  }
  if (checkMetadata && Object.prototype.hasOwnProperty.call(props, "apiVersion") && props.apiVersion!.type !== "string") {
    errs.push(invalid(child(key(child(p, "properties"), "apiVersion"), "type"), props.apiVersion!.type ?? "", "must be string"));
  }
  if (Object.prototype.hasOwnProperty.call(props, "metadata")) {
    const m = props.metadata!;
    const mp = key(child(p, "properties"), "metadata");
    if (checkMetadata && m.type !== "object") errs.push(invalid(child(mp, "type"), m.type ?? "", "must be object"));
    if (lvl === "root") {
      const rest: Record<string, unknown> = { ...m };
      delete rest.type;
      delete rest.default;
      const mprops = Object.keys(m.properties ?? {});
      const onlyNames = mprops.every((k) => k === "name" || k === "generateName");
      if (onlyNames) delete rest.properties;
      const ignorable = (k: string) => {
        const v = rest[k];
        return v === undefined || v === false || v === "" || (Array.isArray(v) && v.length === 0) || (typeof v === "object" && v !== null && Object.keys(v).length === 0 && k !== "additionalProperties");
      };
      if (!Object.keys(rest).every(ignorable)) {
        errs.push(forbidden(mp, "must not specify anything other than name and generateName, but metadata is implicitly specified"));
      }
    }
  }
  if (embedded && !preserve && Object.keys(props).length === 0) {
    errs.push(required(child(p, "properties"), "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"));
  }
  return errs;
}

function valueValidation(v: JSONSchemaProps, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, p: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!skipAnyOf) (v.anyOf ?? []).forEach((x, i) => errs.push(...nested(x, false, lvl, index(child(p, "anyOf"), i))));
  (v.allOf ?? []).forEach((x, i) => errs.push(...nested(x, skipFirstAllOfAnyOf && i === 0, lvl, index(child(p, "allOf"), i))));
  (v.oneOf ?? []).forEach((x, i) => errs.push(...nested(x, false, lvl, index(child(p, "oneOf"), i))));
  if (v.not) errs.push(...nested(v.not, false, lvl, child(p, "not")));
  if (v.pattern) {
    try {
      re2().RE2JS.compile(v.pattern);
    } catch (e) {
      errs.push(invalid(child(p, "pattern"), v.pattern, `must be a valid regular expression, but isn't: ${(e as Error).message}`));
    }
  }
  return errs;
}

/** A schema inside anyOf/allOf/oneOf/not: only value validations are allowed. */
function nested(v: JSONSchemaProps, skipAnyOf: boolean, lvl: Level, p: string): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...valueValidation(v, skipAnyOf, false, lvl, p));
  const items = Array.isArray(v.items) ? undefined : v.items;
  if (items) errs.push(...nested(items, false, lvl, child(p, "items")));
  for (const [k, f] of Object.entries(v.properties ?? {})) errs.push(...nested(f, false, "field", key(child(p, "properties"), k)));
  if (v.type) errs.push(forbidden(child(p, "type"), "must be empty to be structural"));
  if (v.additionalProperties !== undefined && v.additionalProperties !== null) {
    errs.push(forbidden(child(p, "additionalProperties"), "must be undefined to be structural"));
  }
  if (v.default !== undefined && v.default !== null) errs.push(forbidden(child(p, "default"), "must be undefined to be structural"));
  if (v.title) errs.push(forbidden(child(p, "title"), "must be empty to be structural"));
  if (v.description) errs.push(forbidden(child(p, "description"), "must be empty to be structural"));
  if (v.nullable) errs.push(forbidden(child(p, "nullable"), "must be false to be structural"));
  if (v["x-kubernetes-preserve-unknown-fields"]) errs.push(forbidden(child(p, "x-kubernetes-preserve-unknown-fields"), "must be false to be structural"));
  if (v["x-kubernetes-embedded-resource"]) errs.push(forbidden(child(p, "x-kubernetes-embedded-resource"), "must be false to be structural"));
  if (v["x-kubernetes-int-or-string"]) errs.push(forbidden(child(p, "x-kubernetes-int-or-string"), "must be false to be structural"));
  if ((v["x-kubernetes-list-map-keys"]?.length ?? 0) > 0) errs.push(forbidden(child(p, "x-kubernetes-list-map-keys"), "must be empty to be structural"));
  if (v["x-kubernetes-list-type"] !== undefined) errs.push(forbidden(child(p, "x-kubernetes-list-type"), "must be undefined to be structural"));
  if (v["x-kubernetes-map-type"] !== undefined) errs.push(forbidden(child(p, "x-kubernetes-map-type"), "must be undefined to be structural"));
  if ((v["x-kubernetes-validations"]?.length ?? 0) > 0) errs.push(forbidden(child(p, "x-kubernetes-validations"), "must be empty to be structural"));
  if (v.properties && Object.prototype.hasOwnProperty.call(v.properties, "metadata")) {
    errs.push(forbidden(key(child(p, "properties"), "metadata"), "must not be specified in a nested context"));
  }
  return errs;
}

/** validateStructuralCompleteness: properties/items named in value validations must exist in the structure. */
function completeness(v: JSONSchemaProps, s: JSONSchemaProps | undefined, sPath: string, vPath: string): FieldError[] {
  if (!s) return [required(sPath, `because it is defined in ${vPath}`)];
  const errs: FieldError[] = [];
  if (v.not) errs.push(...nestedCompleteness(v.not, s, sPath, child(vPath, "not")));
  (v.allOf ?? []).forEach((x, i) => errs.push(...nestedCompleteness(x, s, sPath, index(child(vPath, "allOf"), i))));
  (v.anyOf ?? []).forEach((x, i) => errs.push(...nestedCompleteness(x, s, sPath, index(child(vPath, "anyOf"), i))));
  (v.oneOf ?? []).forEach((x, i) => errs.push(...nestedCompleteness(x, s, sPath, index(child(vPath, "oneOf"), i))));
  return errs;
}

function nestedCompleteness(v: JSONSchemaProps, s: JSONSchemaProps | undefined, sPath: string, vPath: string): FieldError[] {
  if (!s) return [required(sPath, `because it is defined in ${vPath}`)];
  const errs: FieldError[] = [...completeness(v, s, sPath, vPath)];
  const vItems = Array.isArray(v.items) ? undefined : v.items;
  const sItems = Array.isArray(s.items) ? undefined : s.items;
  if (vItems) errs.push(...nestedCompleteness(vItems, sItems, child(sPath, "items"), child(vPath, "items")));
  for (const [k, vf] of Object.entries(v.properties ?? {})) {
    const sf = s.properties && Object.prototype.hasOwnProperty.call(s.properties, k) ? s.properties[k] : undefined;
    if (!sf) errs.push(required(key(child(sPath, "properties"), k), `because it is defined in ${key(child(vPath, "properties"), k)}`));
    else errs.push(...nestedCompleteness(vf, sf, key(child(sPath, "properties"), k), key(child(vPath, "properties"), k)));
  }
  return errs;
}

function sortByText(errs: FieldError[]): FieldError[] {
  return errs
    .map((e) => [formatFieldError(e), e] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map((x) => x[1]);
}

/**
 * Upstream ValidateStructural at `path` (e.g. `spec.versions[0].schema.openAPIV3Schema`): a
 * schema that cannot be converted gives the single `Invalid value: ""` error of CRD validation
 * at that path; otherwise the invariants and completeness errors, sorted by text.
 */
export function validateStructural(schema: JSONSchemaProps | undefined, path: string): FieldError[] {
  if (!schema) return [];
  const convErr = newStructuralError(schema);
  if (convErr) return [invalid(path, "", convErr)];
  return sortByText([...invariants(schema, "root", path), ...completenessRoot(schema, path)]);
}

function completenessRoot(s: JSONSchemaProps, p: string): FieldError[] {
  // walk every structural node and check its value validations against it
  const errs: FieldError[] = [...completeness(s, s, p, p)];
  const items = Array.isArray(s.items) ? undefined : s.items;
  if (items) errs.push(...completenessRoot(items, child(p, "items")));
  for (const [k, v] of Object.entries(s.properties ?? {})) errs.push(...completenessRoot(v, key(child(p, "properties"), k)));
  if (typeof s.additionalProperties === "object" && s.additionalProperties) errs.push(...completenessRoot(s.additionalProperties, child(p, "additionalProperties")));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Per-node OpenAPI checks of CRD validation (ValidateCustomResourceDefinitionOpenAPISchema)

const openapiV3Types = ["array", "boolean", "integer", "number", "object", "string"];

interface NodeCtx {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
}

/**
 * The per-node schema checks CRD validation makes besides the structural rules: unsupported
 * keywords, `type` values, defaults inside resource metadata, uniqueItems, additionalProperties
 * with properties, x-kubernetes-* placement and list/map type rules, root rules with the status
 * subresource.
 */
export function validateOpenAPISchema(
  schema: JSONSchemaProps | undefined,
  path: string,
  opts: { statusSubresource?: boolean; allowDefaults?: boolean } = {},
): FieldError[] {
  if (!schema) return [];
  const errs: FieldError[] = [];
  if (opts.statusSubresource) {
    for (const [k, v] of Object.entries(schema)) {
      if (v === undefined || v === null || v === false || v === "" || (Array.isArray(v) && v.length === 0)) continue;
      if (k === "type") {
        if (v !== "object") {
          errs.push(invalid(`${path}.type`, v, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`));
          break;
        }
        continue;
      }
      if (!["description", "type", "required", "properties", "x-kubernetes-validations"].includes(k)) {
        errs.push(invalid(path, schema, `only [description type required properties x-kubernetes-validations] fields are allowed at the root of the schema if the status subresource is enabled`));
        break;
      }
    }
  }
  if (schema.nullable) errs.push(forbidden(`${path}.nullable`, "nullable cannot be true at the root"));
  errs.push(...openAPINode(schema, path, { allowDefaults: opts.allowDefaults ?? true, disallowDefaultsReason: "", insideResourceMeta: false }, true));
  return errs;
}

function openAPINode(s: JSONSchemaProps | undefined, p: string, ctx: NodeCtx, isRoot: boolean): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  if (s.type && !openapiV3Types.includes(s.type) && s.type !== "null") errs.push(notSupported(child(p, "type"), s.type, openapiV3Types));
  if (s.default !== undefined && !ctx.allowDefaults) {
    errs.push(forbidden(child(p, "default"), "must not be set" + (ctx.disallowDefaultsReason ? " " + ctx.disallowDefaultsReason : "")));
  }
  if (s.id) errs.push(forbidden(child(p, "id"), "id is not supported"));
  if (s.additionalItems !== undefined) errs.push(forbidden(child(p, "additionalItems"), "additionalItems is not supported"));
  if (s.patternProperties && Object.keys(s.patternProperties).length > 0) errs.push(forbidden(child(p, "patternProperties"), "patternProperties is not supported"));
  if (s.definitions && Object.keys(s.definitions).length > 0) errs.push(forbidden(child(p, "definitions"), "definitions is not supported"));
  if (s.dependencies) errs.push(forbidden(child(p, "dependencies"), "dependencies is not supported"));
  if (s.$ref) errs.push(forbidden(child(p, "$ref"), "$ref is not supported"));
  if (s.type === "null") errs.push(forbidden(child(p, "type"), "type cannot be set to null, use nullable as an alternative"));
  if (Array.isArray(s.items) && s.items.length > 0) errs.push(forbidden(child(p, "items"), "items must be a schema object and not an array"));
  if (ctx.insideResourceMeta && s["x-kubernetes-embedded-resource"]) {
    errs.push(forbidden(child(p, "x-kubernetes-embedded-resource"), "must not be used inside of resource meta"));
  }
  if (s.uniqueItems) errs.push(forbidden(child(p, "uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"));
  const ap = s.additionalProperties;
  if (ap !== undefined && ap !== null) {
    if (Object.keys(s.properties ?? {}).length > 0 && (ap === false || typeof ap === "object")) {
      errs.push(forbidden(child(p, "additionalProperties"), "additionalProperties and properties are mutual exclusive"));
    }
    if (typeof ap === "object") {
      const sub = ctx.insideResourceMeta ? { ...ctx, allowDefaults: false, disallowDefaultsReason: "inside additionalProperties applying to object metadata" } : ctx;
      errs.push(...openAPINode(ap, child(p, "additionalProperties"), sub, false));
    }
  }
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    let sub = ctx;
    if ((isRoot || s["x-kubernetes-embedded-resource"]) && metaFields.has(k)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${k}` };
    }
    errs.push(...openAPINode(v, key(child(p, "properties"), k), sub, false));
  }
  if (s.not) errs.push(...openAPINode(s.not, child(p, "not"), ctx, false));
  (s.allOf ?? []).forEach((x, i) => errs.push(...openAPINode(x, index(child(p, "allOf"), i), ctx, false)));
  (s.oneOf ?? []).forEach((x, i) => errs.push(...openAPINode(x, index(child(p, "oneOf"), i), ctx, false)));
  (s.anyOf ?? []).forEach((x, i) => errs.push(...openAPINode(x, index(child(p, "anyOf"), i), ctx, false)));
  if (s.items && !Array.isArray(s.items)) errs.push(...openAPINode(s.items, child(p, "items"), ctx, false));

  const pufs = s["x-kubernetes-preserve-unknown-fields"];
  if (pufs === false) errs.push(invalid(child(p, "x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"));
  const mapType = s["x-kubernetes-map-type"];
  if (mapType !== undefined && s.type !== "object") {
    if (!s.type) errs.push(required(child(p, "type"), "must be object if x-kubernetes-map-type is specified"));
    else errs.push(invalid(child(p, "type"), s.type, "must be object if x-kubernetes-map-type is specified"));
  }
  if (mapType !== undefined && mapType !== "atomic" && mapType !== "granular") {
    errs.push(notSupported(child(p, "x-kubernetes-map-type"), mapType, ["atomic", "granular"]));
  }
  const listType = s["x-kubernetes-list-type"];
  if (listType !== undefined && s.type !== "array") {
    if (!s.type) errs.push(required(child(p, "type"), "must be array if x-kubernetes-list-type is specified"));
    else errs.push(invalid(child(p, "type"), s.type, "must be array if x-kubernetes-list-type is specified"));
  } else if (listType === "set") {
    const it = Array.isArray(s.items) ? undefined : s.items;
    if (it?.["x-kubernetes-list-type"] !== undefined && it["x-kubernetes-list-type"] !== "atomic") {
      errs.push(invalid(child(child(p, "items"), "x-kubernetes-list-type"), it["x-kubernetes-list-type"], "must be atomic as item of a list with x-kubernetes-list-type=set"));
    }
    if (it?.["x-kubernetes-map-type"] !== undefined && it["x-kubernetes-map-type"] !== "atomic") {
      errs.push(invalid(child(child(p, "items"), "x-kubernetes-map-type"), it["x-kubernetes-list-type"] ?? null, "must be atomic as item of a list with x-kubernetes-list-type=set"));
    }
  }
  if (listType !== undefined && !["atomic", "set", "map"].includes(listType)) {
    errs.push(notSupported(child(p, "x-kubernetes-list-type"), listType, ["atomic", "set", "map"]));
  }
  const mapKeys = s["x-kubernetes-list-map-keys"] ?? [];
  if (mapKeys.length > 0 && listType !== "map") {
    if (listType === undefined) errs.push(required(child(p, "x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"));
    else errs.push(invalid(child(p, "x-kubernetes-list-type"), listType, "must be map if x-kubernetes-list-map-keys is non-empty"));
  }
  if (listType === "map") {
    const it = Array.isArray(s.items) ? undefined : s.items;
    if (mapKeys.length === 0) errs.push(required(child(p, "x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"));
    if (!s.items) errs.push(required(child(p, "items"), "must have a schema if x-kubernetes-list-type is map"));
    else if (Array.isArray(s.items)) errs.push(invalid(child(p, "items"), s.items, "must only have a single schema if x-kubernetes-list-type is map"));
    else if (it && it.type !== "object") errs.push(invalid(child(child(p, "items"), "type"), it.type ?? "", "must be object if parent array's x-kubernetes-list-type is map"));
    else if (it) {
      const keys = new Set<string>();
      for (const k of mapKeys) {
        const ks = it.properties?.[k];
        if (ks) {
          if (ks.type !== "string" && ks.type !== "integer" && ks.type !== "number" && ks.type !== "boolean" && !ks["x-kubernetes-int-or-string"]) {
            errs.push(invalid(child(key(child(child(p, "items"), "properties"), k), "type"), it.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else {
          errs.push(invalid(child(p, "x-kubernetes-list-map-keys"), mapKeys, "entries must all be names of item properties"));
        }
        if (keys.has(k)) errs.push(invalid(child(p, "x-kubernetes-list-map-keys"), mapKeys, "must not contain duplicate entries"));
        keys.add(k);
      }
    }
  }
  return errs;
}
