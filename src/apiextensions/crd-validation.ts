// Validation of CustomResourceDefinitions (apiextensions.k8s.io/v1), as upstream's
// apiextensions-apiserver 1.34 (pkg/apis/apiextensions/validation) with its client-visible texts.
//
// Upstream validates the internal form of a CRD: a v1 object whose versions all carry the same
// schema / subresources / printer columns / selectable fields has those hoisted to
// spec.validation / spec.subresources / spec.additionalPrinterColumns / spec.selectableFields,
// and spec.version is versions[0].name. Field paths follow that form (a single-version CRD with a
// bad schema is reported under `spec.validation.openAPIV3Schema...`), as kubectl users see them.
//
// The structural-schema rules and the CEL rule compilation belong to other modules (schema and
// cel-rules helpers); `structuralErrors` and `celRuleErrors` below are the small local adapters
// that call them (or stand in for them until their branches are merged).
import {
  duplicate,
  forbidden,
  invalid,
  isDNS1035Label,
  isDNS1123Subdomain,
  notSupported,
  required,
  tooMany,
  type FieldError,
} from "../apimachinery/validation.js";
import { deepEqual } from "../apimachinery/json-value.js";
import { pemBlocks } from "../apimachinery/pem.js";
import { structuralErrors, celRuleErrors } from "./crd-validation-adapters.js";
import type { CelTimings } from "../cel/timings.js";

type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);

export const MAX_SELECTABLE_FIELDS = 8;
export const establishedCondition = "Established";

const printerColumnTypes = ["boolean", "date", "integer", "number", "string"];
const printerColumnFormats = ["byte", "date", "date-time", "double", "float", "int32", "int64", "password"];
const openapiV3Types = ["array", "boolean", "integer", "number", "object", "string"];
const supportedRuleReasons = ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"];
const acceptedConversionReviewVersions = ["v1", "v1beta1"];
const metaFields = new Set(["metadata", "kind", "apiVersion"]);
const allowedAtStatusRoot = new Set([
  "description", "type", "format", "title", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength",
  "pattern", "maxItems", "minItems", "uniqueItems", "multipleOf", "required", "items", "properties", "externalDocs", "example",
  "x-kubernetes-preserve-unknown-fields", "x-kubernetes-validations",
]);
const allowedAtStatusRootGoNames = [
  "Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum", "MaxLength", "MinLength",
  "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example",
  "XPreserveUnknownFields", "XValidations",
];

// ---------------------------------------------------------------------------------------------
// Internal (hoisted) view of a v1 CRD spec

interface VersionView {
  raw: Obj;
  name: string;
  schema?: Obj; // per-version schema (CustomResourceValidation), absent when hoisted
  subresources?: Obj;
  columns?: Obj[];
  selectableFields?: Obj[];
}

interface SpecView {
  versions: VersionView[];
  version: string;
  validation?: Obj;
  subresources?: Obj;
  columns?: Obj[];
  selectableFields?: Obj[];
}

/** Empty lists are nil for upstream's semantic equality. */
const nonEmpty = (v: unknown): Obj[] | undefined => (Array.isArray(v) && v.length > 0 ? v : undefined);
const objOrUndef = (v: unknown): Obj | undefined => (isObj(v) ? v : undefined);

export function specView(spec: Obj): SpecView {
  const versions: VersionView[] = arr(spec.versions).map((v) => {
    const raw = isObj(v) ? v : {};
    return {
      raw,
      name: str(raw.name),
      schema: objOrUndef(raw.schema),
      subresources: objOrUndef(raw.subresources),
      columns: nonEmpty(raw.additionalPrinterColumns),
      selectableFields: nonEmpty(raw.selectableFields),
    };
  });
  const view: SpecView = { versions, version: versions[0]?.name ?? "" };
  if (versions.length === 0) return view;
  const hoist = <K extends "schema" | "subresources" | "columns" | "selectableFields">(k: K): VersionView[K] | undefined => {
    const first = versions[0]![k];
    if (!versions.every((v) => deepEqual(v[k] ?? null, first ?? null))) return undefined;
    for (const v of versions) delete v[k];
    return first;
  };
  view.validation = hoist("schema");
  view.subresources = hoist("subresources");
  view.columns = hoist("columns");
  view.selectableFields = hoist("selectableFields");
  return view;
}

// ---------------------------------------------------------------------------------------------
// Options (upstream's validationOptions: what an update may keep of what was accepted before)

interface Options {
  requireRecognizedConversionReviewVersion: boolean;
  requireImmutableNames: boolean;
  requireOpenAPISchema: boolean;
  requireValidPropertyType: boolean;
  allowInvalidCABundle: boolean;
  allowTooManySelectableFields: Record<string, boolean>;
  /** Versions whose schema did not change on this update: per-expression CEL costs are not re-checked. */
  unchangedSchemas: Set<string>;
  /** Told how long the schemas' rules took to compile. */
  celTimings?: CelTimings;
}

export function isCRDConditionTrue(crd: Obj | undefined, type: string): boolean {
  return arr(crd?.status?.conditions).some((c) => isObj(c) && c.type === type && c.status === "True");
}

function schemaOf(view: SpecView, version: string): Obj | undefined {
  if (view.validation) return view.validation;
  return view.versions.find((v) => v.name === version)?.schema;
}

function allVersionsSpecifySchema(view: SpecView): boolean {
  if (view.validation?.openAPIV3Schema) return true;
  return view.versions.every((v) => isObj(v.schema?.openAPIV3Schema));
}

function schemaHas(s: unknown, pred: (s: Obj) => boolean): boolean {
  if (!isObj(s)) return false;
  if (pred(s)) return true;
  const items = s.items;
  if (Array.isArray(items) ? items.some((i) => schemaHas(i, pred)) : schemaHas(items, pred)) return true;
  for (const k of ["allOf", "anyOf", "oneOf"]) if (arr(s[k]).some((x) => schemaHas(x, pred))) return true;
  if (schemaHas(s.not, pred)) return true;
  for (const k of ["properties", "patternProperties", "definitions", "dependencies"]) {
    if (isObj(s[k]) && Object.values(s[k]).some((x) => schemaHas(x, pred))) return true;
  }
  if (schemaHas(s.additionalProperties, pred) || schemaHas(s.additionalItems, pred)) return true;
  return false;
}

const specHasInvalidTypes = (view: SpecView) =>
  [view.validation, ...view.versions.map((v) => v.schema)].some((v) =>
    schemaHas(v?.openAPIV3Schema, (s) => typeof s.type === "string" && s.type !== "" && !openapiV3Types.includes(s.type)),
  );

function createOptions(): Options {
  return {
    requireRecognizedConversionReviewVersion: true,
    requireImmutableNames: false,
    requireOpenAPISchema: true,
    requireValidPropertyType: true,
    allowInvalidCABundle: true,
    allowTooManySelectableFields: {},
    unchangedSchemas: new Set(),
  };
}

function updateOptions(crd: Obj, old: Obj): Options {
  const oldSpec = isObj(old.spec) ? old.spec : {};
  const newSpec = isObj(crd.spec) ? crd.spec : {};
  const oldView = specView(oldSpec);
  const newView = specView(newSpec);
  const oldReview = arr(oldSpec.conversion?.webhook?.conversionReviewVersions);
  const established = isCRDConditionTrue(old, establishedCondition);
  const oldCA = str(oldSpec.conversion?.webhook?.clientConfig?.caBundle);
  const tooMany: Record<string, boolean> = {};
  const oldVersions = new Map(arr(oldSpec.versions).filter(isObj).map((v) => [str(v.name), v]));
  for (const v of arr(newSpec.versions).filter(isObj)) {
    const ov = oldVersions.get(str(v.name));
    if (ov && arr(ov.selectableFields).length > MAX_SELECTABLE_FIELDS && deepEqual(v.selectableFields ?? null, ov.selectableFields ?? null)) tooMany[str(v.name)] = true;
  }
  if (oldView.selectableFields && oldView.selectableFields.length > MAX_SELECTABLE_FIELDS && deepEqual(newView.selectableFields ?? null, oldView.selectableFields)) tooMany[""] = true;
  const unchanged = new Set<string>();
  for (const v of newView.versions) {
    const a = schemaOf(newView, v.name);
    const b = schemaOf(oldView, v.name);
    if (a && b && deepEqual(a, b)) unchanged.add(v.name);
  }
  return {
    requireRecognizedConversionReviewVersion: oldReview.length === 0 || oldReview.some((v) => acceptedConversionReviewVersions.includes(v)),
    requireImmutableNames: established,
    requireOpenAPISchema: allVersionsSpecifySchema(oldView),
    requireValidPropertyType: !specHasInvalidTypes(oldView),
    allowInvalidCABundle: !established || (oldCA !== "" && validateCABundle("caBundle", oldCA).length > 0),
    allowTooManySelectableFields: tooMany,
    unchangedSchemas: unchanged,
  };
}

// ---------------------------------------------------------------------------------------------
// Entry point

/** Every error of a CRD being created (`old` absent) or updated, in upstream's order. */
export function validateCRD(crd: Obj, old?: Obj, celTimings?: CelTimings): FieldError[] {
  const spec = isObj(crd.spec) ? crd.spec : {};
  const opts = { ...(old ? updateOptions(crd, old) : createOptions()), celTimings };
  const errs: FieldError[] = [];
  if (!old) {
    const name = str(crd.metadata?.name);
    const plural = str(spec.names?.plural);
    const group = str(spec.group);
    if (name !== "" && name !== `${plural}.${group}`) errs.push(invalid("metadata.name", name, `must be spec.names.plural+"."+spec.group`));
  }
  const view = specView(spec);
  errs.push(...validateSpec(spec, view, opts));
  if (old) {
    const oldSpec = isObj(old.spec) ? old.spec : {};
    if (opts.requireImmutableNames) {
      errs.push(...immutable(spec.scope, oldSpec.scope, "spec.scope"));
      errs.push(...immutable(spec.names?.kind, oldSpec.names?.kind, "spec.names.kind"));
    }
    errs.push(...immutable(spec.group, oldSpec.group, "spec.group"));
    errs.push(...immutable(spec.names?.plural, oldSpec.names?.plural, "spec.names.plural"));
  }
  errs.push(...validateCRDStatus(crd));
  errs.push(...validateStoredVersions(crd.status?.storedVersions, view));
  errs.push(...validateAPIApproval(crd, old));
  errs.push(...validatePreserveUnknownFields(crd, old));
  return errs;
}

/** The /status subresource: only the accepted names are checked (metadata by the store). */
export function validateCRDStatus(crd: Obj): FieldError[] {
  return validateNames(isObj(crd.status?.acceptedNames) ? crd.status.acceptedNames : {}, "status.acceptedNames");
}

function immutable(v: unknown, old: unknown, path: string): FieldError[] {
  return deepEqual(v ?? "", old ?? "") ? [] : [invalid(path, v ?? "", "field is immutable")];
}

export function validateStoredVersions(stored: unknown, view: SpecView): FieldError[] {
  const path = "status.storedVersions";
  const list = arr(stored).map(String);
  if (list.length === 0) return [invalid(path, Array.isArray(stored) && stored.length > 0 ? stored : null, "must have at least one stored version")];
  const errs: FieldError[] = [];
  const remaining = new Map<string, number>();
  list.forEach((v, i) => remaining.set(v, i));
  for (const v of view.versions) {
    const has = remaining.has(v.name);
    if (v.raw.storage === true && !has) errs.push(invalid(path, list, `must have the storage version ${v.name}`));
    if (has) remaining.delete(v.name);
  }
  for (const [v, i] of remaining) {
    errs.push(invalid(`${path}[${i}]`, v, `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`));
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// spec

function validateSpec(spec: Obj, view: SpecView, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const group = str(spec.group);
  if (group === "") errs.push(required("spec.group"));
  else {
    const e = isDNS1123Subdomain(group);
    if (e.length > 0) errs.push(invalid("spec.group", group, e.join(",")));
    else if (group.split(".").length < 2) errs.push(invalid("spec.group", group, "should be a domain with at least one dot"));
  }
  errs.push(...enumString("spec.scope", str(spec.scope), ["Cluster", "Namespaced"], true));

  const preserveUnknown = spec.preserveUnknownFields === true;
  if (opts.requireOpenAPISchema) {
    if (!view.validation?.openAPIV3Schema) {
      view.versions.forEach((v, i) => {
        if (!isObj(v.schema?.openAPIV3Schema)) errs.push(required(`spec.versions[${i}].schema.openAPIV3Schema`));
      });
    }
  } else if (!preserveUnknown && !view.validation?.openAPIV3Schema) {
    view.versions.forEach((v, i) => {
      if (v.raw.served === true && !isObj(v.schema?.openAPIV3Schema)) errs.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, "because otherwise all fields are pruned"));
    });
  }
  const hasDefaults = [view.validation, ...view.versions.map((v) => v.schema)].some((s) => schemaHas(s?.openAPIV3Schema, (x) => x.default !== undefined));
  if (hasDefaults && preserveUnknown) errs.push(invalid("spec.preserveUnknownFields", true, "must be false in order to use defaults in the schema"));

  let storageCount = 0;
  const names = new Set<string>();
  let unique = true;
  view.versions.forEach((v, i) => {
    if (v.raw.storage === true) storageCount++;
    if (names.has(v.name)) unique = false;
    else names.add(v.name);
    const e = isDNS1035Label(v.name);
    if (e.length > 0) errs.push(invalid(`spec.versions[${i}].name`, v.name, e.join(",")));
    const sub = view.subresources ?? v.subresources;
    errs.push(...validateVersion(v, `spec.versions[${i}]`, Boolean(sub && isObj(sub.status)), opts));
  });
  const versionsValue = arr(spec.versions);
  if (!unique) errs.push(invalid("spec.versions", versionsValue, "must contain unique version names"));
  if (storageCount !== 1) errs.push(invalid("spec.versions", versionsValue, "must have exactly one version marked as storage version"));
  if (view.version !== "") {
    const e = isDNS1035Label(view.version);
    if (e.length > 0) errs.push(invalid("spec.version", view.version, e.join(",")));
  }

  const n = isObj(spec.names) ? spec.names : {};
  for (const k of ["plural", "singular", "kind", "listKind"]) if (str(n[k]) === "") errs.push(required(`spec.names.${k}`));
  errs.push(...validateNames(n, "spec.names"));

  const anyStatus = Boolean(isObj(view.subresources?.status) || view.versions.some((v) => isObj(v.subresources?.status)));
  errs.push(...validateValidation(view.validation, anyStatus, { ...opts, suppressCost: opts.unchangedSchemas.has(view.version) }, "spec.validation"));
  errs.push(...validateSubresources(view.subresources, "spec.subresources"));
  (view.columns ?? []).forEach((c, i) => errs.push(...validateColumn(c, `spec.additionalPrinterColumns[${i}]`)));
  if (view.selectableFields) {
    if (!view.validation) errs.push(invalid("spec.selectableFields", "", "may only be set when validations.schema is included"));
    else errs.push(...validateSelectableFields(view.selectableFields, view.validation.openAPIV3Schema, "spec.selectableFields", opts, ""));
  }

  const conversion = isObj(spec.conversion) ? spec.conversion : undefined;
  if (conversion && str(conversion.strategy) !== "None" && preserveUnknown) {
    errs.push(invalid("spec.conversion.strategy", str(conversion.strategy), "must be None if spec.preserveUnknownFields is true"));
  }
  errs.push(...validateConversion(conversion, opts));
  return errs;
}

function enumString(path: string, value: string, accepted: string[], isRequired: boolean): FieldError[] {
  if (value === "") return isRequired ? [required(path)] : [];
  return accepted.includes(value) ? [] : [notSupported(path, value, accepted)];
}

function validateNames(names: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const label = (k: string) => {
    const v = str(names[k]);
    const e = isDNS1035Label(v);
    if (v !== "" && e.length > 0) errs.push(invalid(`${path}.${k}`, v, e.join(",")));
  };
  const mixed = (k: string) => {
    const v = str(names[k]);
    const e = isDNS1035Label(v.toLowerCase());
    if (v !== "" && e.length > 0) errs.push(invalid(`${path}.${k}`, v, "may have mixed case, but should otherwise match: " + e.join(",")));
  };
  label("plural");
  label("singular");
  mixed("kind");
  mixed("listKind");
  arr(names.shortNames).forEach((s, i) => {
    const e = isDNS1035Label(String(s));
    if (e.length > 0) errs.push(invalid(`${path}.shortNames[${i}]`, s, e.join(",")));
  });
  if (str(names.kind) !== "" && names.kind === names.listKind) errs.push(invalid(`${path}.listKind`, names.listKind, "kind and listKind may not be the same"));
  arr(names.categories).forEach((c, i) => {
    const e = isDNS1035Label(String(c));
    if (e.length > 0) errs.push(invalid(`${path}.categories[${i}]`, c, e.join(",")));
  });
  return errs;
}

function validateVersion(v: VersionView, path: string, statusEnabled: boolean, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  for (const e of deprecationWarningErrors(v.raw.deprecated === true, v.raw.deprecationWarning)) errs.push(invalid(`${path}.deprecationWarning`, v.raw.deprecationWarning, e));
  errs.push(...validateValidation(v.schema, statusEnabled, { ...opts, suppressCost: opts.unchangedSchemas.has(v.name) }, `${path}.schema`));
  errs.push(...validateSubresources(v.subresources, `${path}.subresources`));
  (v.columns ?? []).forEach((c, i) => errs.push(...validateColumn(c, `${path}.additionalPrinterColumns[${i}]`)));
  if (v.selectableFields) {
    if (!isObj(v.schema?.openAPIV3Schema)) errs.push(invalid(`${path}.selectableFields`, "", "may only be set when `version.schema.openAPIV3Schema` is not included"));
    else errs.push(...validateSelectableFields(v.selectableFields, v.schema!.openAPIV3Schema, `${path}.selectableFields`, opts, v.name));
  }
  return errs;
}

function deprecationWarningErrors(deprecated: boolean, warning: unknown): string[] {
  if (!deprecated && warning !== undefined && warning !== null) return ["can only be set for deprecated versions"];
  if (typeof warning !== "string") return [];
  const errs: string[] = [];
  if (Buffer.byteLength(warning, "utf8") > 256) errs.push("must be <= 256 characters long");
  if (warning.length === 0) errs.push("must not be an empty string");
  let byte = 0;
  for (const ch of warning) {
    const cp = ch.codePointAt(0)!;
    if (/\p{Cc}/u.test(ch)) {
      errs.push(`must only contain printable UTF-8 characters; control character found at index ${byte}`);
      break;
    }
    if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) {
      errs.push(`must only contain printable UTF-8 characters; non-printable character found at index ${byte}`);
      break;
    }
    byte += Buffer.byteLength(String.fromCodePoint(cp), "utf8");
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Schemas

interface SchemaOptions extends Options {
  suppressCost: boolean;
}

function validateValidation(validation: Obj | undefined, statusEnabled: boolean, opts: SchemaOptions, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!validation) return errs;
  const schema = validation.openAPIV3Schema;
  if (!isObj(schema)) return errs;
  const sp = `${path}.openAPIV3Schema`;
  if (statusEnabled) {
    for (const [k, v] of Object.entries(schema)) {
      if (v === undefined || v === null || v === false || v === "" || (Array.isArray(v) && v.length === 0)) continue;
      if (k === "type") {
        if (v !== "object") {
          errs.push(invalid(`${sp}.type`, v, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`));
          break;
        }
        continue;
      }
      if (!allowedAtStatusRoot.has(k)) {
        errs.push(invalid(sp, schema, `only [${allowedAtStatusRootGoNames.join(" ")}] fields are allowed at the root of the schema if the status subresource is enabled`));
        break;
      }
    }
  }
  if (schema.nullable === true) errs.push(forbidden(`${sp}.nullable`, "nullable cannot be true at the root"));

  // Structural schema (always required in v1: preserveUnknownFields is false).
  const structural = structuralErrors(schema, sp);
  errs.push(...structural.errors);
  const schemaErrs = validateOpenAPISchema(schema, sp, { allowDefaults: true, insideMeta: false, requireValidPropertyType: opts.requireValidPropertyType }, true);
  errs.push(...schemaErrs);
  // NewStructural's errors overlap the OpenAPI checks: shown only when those found nothing.
  if (errs.length === 0) errs.push(...structural.init);
  // CEL rules are compiled only when the schema is otherwise valid (upstream's order of checks).
  if (errs.length === 0) errs.push(...celRuleErrors(schema, sp, { suppressPerExpressionCost: opts.suppressCost, timings: opts.celTimings }));
  return errs;
}

interface Ssv {
  allowDefaults: boolean;
  disallowDefaultsReason?: string;
  insideMeta: boolean;
  requireValidPropertyType: boolean;
}

function key(path: string, k: string): string {
  return `${path}[${k}]`;
}

/** upstream ValidateCustomResourceDefinitionOpenAPISchema (schema errors; CEL compilation apart). */
function validateOpenAPISchema(s: unknown, path: string, ssv: Ssv, isRoot: boolean): FieldError[] {
  if (!isObj(s)) return [];
  const errs: FieldError[] = [...standardValidate(s, path, ssv)];
  if (s.uniqueItems === true) errs.push(forbidden(`${path}.uniqueItems`, "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"));
  const props = isObj(s.properties) ? s.properties : {};
  const hasProps = Object.keys(props).length > 0;
  if (s.additionalProperties !== undefined && s.additionalProperties !== null) {
    if (hasProps && (s.additionalProperties === false || isObj(s.additionalProperties))) {
      errs.push(forbidden(`${path}.additionalProperties`, "additionalProperties and properties are mutual exclusive"));
    }
    const sub = ssv.insideMeta ? { ...ssv, allowDefaults: false, disallowDefaultsReason: "inside additionalProperties applying to object metadata" } : ssv;
    errs.push(...validateOpenAPISchema(s.additionalProperties, `${path}.additionalProperties`, sub, false));
  }
  for (const [p, ps] of Object.entries(props)) {
    let sub = ssv;
    if ((isRoot || s["x-kubernetes-embedded-resource"] === true) && metaFields.has(p)) {
      sub = { ...sub, insideMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${p}` };
    }
    errs.push(...validateOpenAPISchema(ps, `${path}.properties${key("", p)}`, sub, false));
  }
  errs.push(...validateOpenAPISchema(s.not, `${path}.not`, ssv, false));
  for (const k of ["allOf", "oneOf", "anyOf"]) arr(s[k]).forEach((x, i) => errs.push(...validateOpenAPISchema(x, `${path}.${k}[${i}]`, ssv, false)));
  if (isObj(s.definitions)) for (const [d, x] of Object.entries(s.definitions)) errs.push(...validateOpenAPISchema(x, `${path}.definitions[${d}]`, ssv, false));
  if (isObj(s.items)) errs.push(...validateOpenAPISchema(s.items, `${path}.items`, ssv, false));
  else if (Array.isArray(s.items)) s.items.forEach((x, i) => errs.push(...validateOpenAPISchema(x, `${path}.items[${i}]`, ssv, false)));
  if (isObj(s.dependencies)) for (const [d, x] of Object.entries(s.dependencies)) if (isObj(x)) errs.push(...validateOpenAPISchema(x, `${path}.dependencies[${d}]`, ssv, false));

  const type = str(s.type);
  const listType = s["x-kubernetes-list-type"];
  const mapType = s["x-kubernetes-map-type"];
  const mapKeys = arr(s["x-kubernetes-list-map-keys"]);
  if (s["x-kubernetes-preserve-unknown-fields"] === false) errs.push(invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, "must be true or undefined"));
  if (mapType !== undefined && mapType !== null && type !== "object") {
    errs.push(type === "" ? required(`${path}.type`, "must be object if x-kubernetes-map-type is specified") : invalid(`${path}.type`, type, "must be object if x-kubernetes-map-type is specified"));
  }
  if (mapType !== undefined && mapType !== null && mapType !== "atomic" && mapType !== "granular") errs.push(notSupported(`${path}.x-kubernetes-map-type`, mapType, ["atomic", "granular"]));
  const items = isObj(s.items) ? s.items : undefined;
  if (listType !== undefined && listType !== null && type !== "array") {
    errs.push(type === "" ? required(`${path}.type`, "must be array if x-kubernetes-list-type is specified") : invalid(`${path}.type`, type, "must be array if x-kubernetes-list-type is specified"));
  } else if (listType === "set" && items) {
    if (items.type === "array" && items["x-kubernetes-list-type"] !== undefined && items["x-kubernetes-list-type"] !== "atomic") {
      errs.push(invalid(`${path}.items.x-kubernetes-list-type`, items["x-kubernetes-list-type"], "must be atomic as item of a list with x-kubernetes-list-type=set"));
    } else if (items.type === "object" && items["x-kubernetes-map-type"] !== "atomic") {
      errs.push(invalid(`${path}.items.x-kubernetes-map-type`, items["x-kubernetes-list-type"] ?? null, "must be atomic as item of a list with x-kubernetes-list-type=set"));
    }
  }
  if (listType !== undefined && listType !== null && !["atomic", "set", "map"].includes(listType)) errs.push(notSupported(`${path}.x-kubernetes-list-type`, listType, ["atomic", "set", "map"]));
  if (mapKeys.length > 0) {
    if (listType === undefined || listType === null) errs.push(required(`${path}.x-kubernetes-list-type`, "must be map if x-kubernetes-list-map-keys is non-empty"));
    else if (listType !== "map") errs.push(invalid(`${path}.x-kubernetes-list-type`, listType, "must be map if x-kubernetes-list-map-keys is non-empty"));
  }
  if (listType === "map") {
    if (mapKeys.length === 0) errs.push(required(`${path}.x-kubernetes-list-map-keys`, "must not be empty if x-kubernetes-list-type is map"));
    if (s.items === undefined || s.items === null) errs.push(required(`${path}.items`, "must have a schema if x-kubernetes-list-type is map"));
    if (Array.isArray(s.items)) errs.push(invalid(`${path}.items`, s.items, "must only have a single schema if x-kubernetes-list-type is map"));
    if (items && items.type !== "object") errs.push(invalid(`${path}.items.type`, str(items.type), "must be object if parent array's x-kubernetes-list-type is map"));
    if (items && items.type === "object") {
      const seen = new Set<string>();
      const ip = isObj(items.properties) ? items.properties : {};
      for (const k of mapKeys.map(String)) {
        if (k in ip) {
          const t = ip[k]?.type;
          if (t === "array" || t === "object") errs.push(invalid(`${path}.items.properties[${k}].type`, str(items.type), "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        } else {
          errs.push(invalid(`${path}.x-kubernetes-list-map-keys`, mapKeys, "entries must all be names of item properties"));
        }
        if (seen.has(k)) errs.push(invalid(`${path}.x-kubernetes-list-map-keys`, mapKeys, "must not contain duplicate entries"));
        seen.add(k);
      }
    }
  }
  errs.push(...validateMapListKeysMapSet(s, path));
  arr(s["x-kubernetes-validations"]).forEach((r, i) => {
    const rule = isObj(r) ? r : {};
    const rp = `${path}.x-kubernetes-validations[${i}]`;
    const trimmedRule = str(rule.rule).trim();
    const msg = str(rule.message);
    const trimmedMsg = msg.trim();
    const msgExpr = str(rule.messageExpression);
    if (trimmedRule === "") errs.push(required(`${rp}.rule`, "rule is not specified"));
    else if (msg.length > 0 && trimmedMsg === "") errs.push(invalid(`${rp}.message`, msg, "must be non-empty if specified"));
    else if (/[\n\r]/.test(trimmedMsg)) errs.push(invalid(`${rp}.message`, msg, "must not contain line breaks"));
    else if (/[\n\r]/.test(trimmedRule) && trimmedMsg === "") errs.push(required(`${rp}.message`, "message must be specified if rule contains line breaks"));
    if (msgExpr.length > 0 && msgExpr.trim() === "") errs.push(required(`${rp}.messageExpression`, "messageExpression must be non-empty if specified"));
    if (rule.reason !== undefined && rule.reason !== null && !supportedRuleReasons.includes(String(rule.reason))) errs.push(notSupported(`${rp}.reason`, rule.reason, supportedRuleReasons));
    const fp = str(rule.fieldPath);
    if (fp.length > 0 && fp.trim() === "") errs.push(invalid(`${rp}.fieldPath`, fp, "must be non-empty if specified"));
    if (/[\n\r]/.test(fp)) errs.push(invalid(`${rp}.fieldPath`, fp, "must not contain line breaks"));
    if (fp.length > 0 && validFieldPath(fp, s, true).error !== undefined) errs.push(invalid(`${rp}.fieldPath`, fp, "must be a valid path"));
  });
  return errs;
}

function standardValidate(s: Obj, path: string, ssv: Ssv): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(s.type);
  if (ssv.requireValidPropertyType && type !== "" && !openapiV3Types.includes(type)) errs.push(notSupported(`${path}.type`, type, openapiV3Types));
  if (s.default !== undefined && !ssv.allowDefaults) errs.push(forbidden(`${path}.default`, "must not be set" + (ssv.disallowDefaultsReason ? " " + ssv.disallowDefaultsReason : "")));
  if (str(s.id) !== "") errs.push(forbidden(`${path}.id`, "id is not supported"));
  if (s.additionalItems !== undefined && s.additionalItems !== null) errs.push(forbidden(`${path}.additionalItems`, "additionalItems is not supported"));
  if (isObj(s.patternProperties) && Object.keys(s.patternProperties).length > 0) errs.push(forbidden(`${path}.patternProperties`, "patternProperties is not supported"));
  if (isObj(s.definitions) && Object.keys(s.definitions).length > 0) errs.push(forbidden(`${path}.definitions`, "definitions is not supported"));
  if (s.dependencies !== undefined && s.dependencies !== null) errs.push(forbidden(`${path}.dependencies`, "dependencies is not supported"));
  if (s.$ref !== undefined && s.$ref !== null) errs.push(forbidden(`${path}.$ref`, "$ref is not supported"));
  if (type === "null") errs.push(forbidden(`${path}.type`, "type cannot be set to null, use nullable as an alternative"));
  if (Array.isArray(s.items) && s.items.length > 0) errs.push(forbidden(`${path}.items`, "items must be a schema object and not an array"));
  if (ssv.insideMeta && s["x-kubernetes-embedded-resource"] === true) errs.push(forbidden(`${path}.x-kubernetes-embedded-resource`, "must not be used inside of resource meta"));
  return errs;
}

function validateMapListKeysMapSet(s: Obj, path: string): FieldError[] {
  const items = isObj(s.items) ? s.items : undefined;
  const lt = s["x-kubernetes-list-type"];
  if (!items || (lt !== "set" && lt !== "map")) return [];
  const errs: FieldError[] = [];
  if (items.nullable === true) errs.push(forbidden(`${path}.items.nullable`, "cannot be nullable when x-kubernetes-list-type is " + lt));
  if (lt === "map") {
    const req = new Set(arr(items.required).map(String));
    const ip = isObj(items.properties) ? items.properties : {};
    for (const k of arr(s["x-kubernetes-list-map-keys"]).map(String)) {
      const p = ip[k];
      if (!isObj(p)) continue;
      if (!req.has(k) && p.default === undefined) errs.push(required(`${path}.items.properties[${k}].default`, "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"));
      if (p.nullable === true) errs.push(forbidden(`${path}.items.properties[${k}].nullable`, "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"));
    }
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// JSON paths into a schema (upstream cel.ValidFieldPath)

export function validFieldPath(jsonPath: string, schema: unknown, allowArrayNotation: boolean): { steps?: string[]; schema?: Obj; error?: string } {
  const tokens: string[] = [];
  let i = 0;
  while (i < jsonPath.length) {
    const c = jsonPath[i]!;
    if (c === "." || c === "[" || c === "]") {
      tokens.push(c);
      i++;
      continue;
    }
    let j = i;
    if (c === "'") {
      j++;
      while (j < jsonPath.length && !(jsonPath[j] === "'" && jsonPath[j - 1] !== "\\")) j++;
      j++;
    } else while (j < jsonPath.length && !".[]".includes(jsonPath[j]!)) j++;
    tokens.push(jsonPath.slice(i, j));
    i = j;
  }
  let cur: Obj | undefined = isObj(schema) ? schema : undefined;
  const steps: string[] = [];
  const step = (name: string): string | undefined => {
    if (!cur) return "does not refer to a valid field";
    if (isObj(cur.properties)) {
      const next = cur.properties[name];
      steps.push(name);
      if (!isObj(next)) return "does not refer to a valid field";
      cur = next;
    } else if (cur.additionalProperties !== undefined && cur.additionalProperties !== null && cur.additionalProperties !== false) {
      steps.push(name);
      cur = isObj(cur.additionalProperties) ? cur.additionalProperties : undefined;
    } else return "does not refer to a valid field";
    return undefined;
  };
  for (let t = 0; t < tokens.length; t++) {
    const tok = tokens[t]!;
    if (tok === "[") {
      if (!allowArrayNotation) return { error: "array notation is not allowed" };
      const lit = tokens[++t];
      if (lit === undefined) return { error: "unexpected end of JSON path" };
      if (lit.length < 2 || !lit.startsWith("'") || !lit.endsWith("'")) return { error: `expected single quoted string but got ${lit}` };
      const e = step(lit.slice(1, -1).replace(/\\(.)/g, "$1"));
      if (e) return { error: e };
      const close = tokens[++t];
      if (close === undefined) return { error: "unexpected end of JSON path" };
      if (close !== "]") return { error: `expected ] but got ${close}` };
    } else if (tok === ".") {
      const name = tokens[++t];
      if (name === undefined) return { error: "unexpected end of JSON path" };
      const e = step(name);
      if (e) return { error: e };
    } else return { error: `expected [ or . but got: ${tok}` };
  }
  return { steps, schema: cur };
}

function validateSelectableFields(fields: Obj[], schema: unknown, path: string, opts: Options, version: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const p = `${path}[${i}].jsonPath`;
    const jp = str(f?.jsonPath);
    if (jp === "") {
      errs.push(required(p));
      return;
    }
    const r = validFieldPath(jp, schema, false);
    if (r.error !== undefined) {
      errs.push(invalid(p, jp, `is an invalid path: ${r.error}`));
      return;
    }
    if (r.steps![0] === "metadata") errs.push(invalid(p, jp, "must not point to fields in metadata"));
    if (!["string", "boolean", "integer"].includes(str(r.schema?.type))) {
      errs.push(invalid(p, jp, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."));
    }
    const k = r.steps!.join(".");
    if (seen.has(k)) errs.push(duplicate(p, jp));
    else seen.add(k);
  });
  if (seen.size > MAX_SELECTABLE_FIELDS && !opts.allowTooManySelectableFields[version]) errs.push(tooMany(path, seen.size, MAX_SELECTABLE_FIELDS));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Subresources and printer columns

function simpleJSONPath(s: string, path: string): FieldError[] {
  if (s.length === 0) return [invalid(path, s, "must not be empty")];
  if (s[0] !== ".") return [invalid(path, s, "must be a simple json path starting with .")];
  return [];
}

function validateSubresources(sub: Obj | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const scale = sub && isObj(sub.scale) ? sub.scale : undefined;
  if (!scale) return errs;
  const spec = str(scale.specReplicasPath);
  if (spec === "") errs.push(required(`${path}.scale.specReplicasPath`));
  else {
    const e = simpleJSONPath(spec, `${path}.scale.specReplicasPath`);
    if (e.length > 0) errs.push(...e);
    else if (!spec.startsWith(".spec.")) errs.push(invalid(`${path}.scale.specReplicasPath`, spec, "should be a json path under .spec"));
  }
  const status = str(scale.statusReplicasPath);
  if (status === "") errs.push(required(`${path}.scale.statusReplicasPath`));
  else {
    const e = simpleJSONPath(status, `${path}.scale.statusReplicasPath`);
    if (e.length > 0) errs.push(...e);
    else if (!status.startsWith(".status.")) errs.push(invalid(`${path}.scale.statusReplicasPath`, status, "should be a json path under .status"));
  }
  const sel = str(scale.labelSelectorPath);
  if (sel !== "") {
    const e = simpleJSONPath(sel, `${path}.scale.labelSelectorPath`);
    if (e.length > 0) errs.push(...e);
    else if (!sel.startsWith(".spec.") && !sel.startsWith(".status.")) errs.push(invalid(`${path}.scale.labelSelectorPath`, sel, "should be a json path under either .spec or .status"));
  }
  return errs;
}

function validateColumn(c: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (str(c?.name) === "") errs.push(required(`${path}.name`));
  const type = str(c?.type);
  const typeMsg = `must be one of ${printerColumnTypes.join(",")}`;
  if (type === "") errs.push(required(`${path}.type`, typeMsg));
  else if (!printerColumnTypes.includes(type)) errs.push(invalid(`${path}.type`, type, typeMsg));
  const format = str(c?.format);
  if (format !== "" && !printerColumnFormats.includes(format)) errs.push(invalid(`${path}.format`, format, `must be one of ${printerColumnFormats.join(",")}`));
  const jp = str(c?.jsonPath);
  if (jp === "") errs.push(required(`${path}.JSONPath`));
  else errs.push(...simpleJSONPath(jp, `${path}.JSONPath`));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Conversion

function validateConversion(conversion: Obj | undefined, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  if (!conversion) return errs;
  const path = "spec.conversion";
  const strategy = str(conversion.strategy);
  errs.push(...enumString(`${path}.strategy`, strategy, ["None", "Webhook"], true));
  const webhook = isObj(conversion.webhook) ? conversion.webhook : undefined;
  const cc = webhook && isObj(webhook.clientConfig) ? webhook.clientConfig : undefined;
  const reviewVersions = webhook?.conversionReviewVersions;
  if (strategy === "Webhook") {
    if (!cc) errs.push(required(`${path}.webhookClientConfig`, "required when strategy is set to Webhook"));
    else {
      const hasURL = typeof cc.url === "string";
      const hasService = isObj(cc.service);
      if (hasURL === hasService) errs.push(required(`${path}.webhookClientConfig`, "exactly one of url or service is required"));
      else if (hasURL) errs.push(...validateWebhookURL(`${path}.webhookClientConfig.url`, cc.url, true));
      else errs.push(...validateWebhookService(`${path}.webhookClientConfig.service`, cc.service));
      const ca = str(cc.caBundle);
      if (ca.length > 0 && !opts.allowInvalidCABundle) errs.push(...validateCABundle(`${path}.webhookClientConfig.caBundle`, ca));
    }
    errs.push(...validateConversionReviewVersions(arr(reviewVersions).map(String), opts.requireRecognizedConversionReviewVersion, `${path}.conversionReviewVersions`));
  } else {
    if (cc) errs.push(forbidden(`${path}.webhookClientConfig`, "should not be set when strategy is not set to Webhook"));
    if (arr(reviewVersions).length > 0) errs.push(forbidden(`${path}.conversionReviewVersions`, "should not be set when strategy is not set to Webhook"));
  }
  return errs;
}

function validateConversionReviewVersions(versions: string[], requireRecognized: boolean, path: string): FieldError[] {
  if (versions.length < 1) return [required(path)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(`${path}[${i}]`, v, "duplicate version"));
      return;
    }
    seen.add(v);
    for (const e of isDNS1035Label(v)) errs.push(invalid(`${path}[${i}]`, v, e));
    if (acceptedConversionReviewVersions.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) errs.push(invalid(path, versions, `must include at least one of ${acceptedConversionReviewVersions.join(", ")}`));
  return errs;
}

const urlForm = "; desired format: https://host[/path]";

/** upstream webhook.ValidateWebhookURL. */
export function validateWebhookURL(path: string, raw: string, forceHttps: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const m = /^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(raw);
  if (!m) return [required(path, "url must be a valid URL: parse " + JSON.stringify(raw) + ": invalid URL" + urlForm)];
  const scheme = (m[1] ?? "").toLowerCase();
  const authority = m[2] ?? "";
  const at = authority.lastIndexOf("@");
  const user = at >= 0 ? authority.slice(0, at) : undefined;
  const host = at >= 0 ? authority.slice(at + 1) : authority;
  if (forceHttps && scheme !== "https") errs.push(invalid(path, scheme, "'https' is the only allowed URL scheme" + urlForm));
  if (host.length === 0) errs.push(invalid(path, host, "host must be specified" + urlForm));
  if (user !== undefined) errs.push(invalid(path, user, "user information is not permitted in the URL"));
  if ((m[5] ?? "").length > 0) errs.push(invalid(path, m[5], "fragments are not permitted in the URL"));
  if ((m[4] ?? "").length > 0) errs.push(invalid(path, m[4], "query parameters are not permitted in the URL"));
  return errs;
}

/** upstream webhook.ValidateWebhookService. */
export function validateWebhookService(path: string, svc: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (str(svc.name) === "") errs.push(required(`${path}.name`, "service name is required"));
  if (str(svc.namespace) === "") errs.push(required(`${path}.namespace`, "service namespace is required"));
  const port = svc.port ?? 443;
  if (!Number.isInteger(port) || port < 1 || port > 65535) errs.push(invalid(`${path}.port`, port, "port is not valid: must be between 1 and 65535, inclusive"));
  if (typeof svc.path !== "string") return errs;
  const p = svc.path;
  if (p === "/" || p.length === 0) return errs;
  if (p === "//") {
    errs.push(invalid(`${path}.path`, p, "segment[0] may not be empty"));
    return errs;
  }
  if (!p.startsWith("/")) {
    errs.push(invalid(`${path}.path`, p, "must start with a '/'"));
    return errs;
  }
  let rest = p.slice(1);
  if (rest.endsWith("/")) rest = rest.slice(0, -1);
  rest.split("/").forEach((step, i) => {
    if (step.length === 0) {
      errs.push(invalid(`${path}.path`, p, `segment[${i}] may not be empty`));
      return;
    }
    for (const f of isDNS1123Subdomain(step)) errs.push(invalid(`${path}.path`, p, `segment[${i}]: ${f}`));
  });
  return errs;
}

/** upstream webhook.ValidateCABundle: the bundle must hold at least one PEM certificate. */
export function validateCABundle(path: string, caBundleBase64: string): FieldError[] {
  const pem = Buffer.from(caBundleBase64, "base64").toString("latin1");
  if (pemBlocks(pem).some((b) => b.type === "CERTIFICATE" && b.body !== "")) return [];
  return [invalid(path, caBundleBase64, "unable to load root certificates: unable to parse bytes as PEM block")];
}

// ---------------------------------------------------------------------------------------------
// API approval and preserveUnknownFields

const approvalAnnotation = "api-approved.kubernetes.io";

function isProtectedCommunityGroup(group: string): boolean {
  return group === "k8s.io" || group === "kubernetes.io" || group.endsWith(".k8s.io") || group.endsWith(".kubernetes.io");
}

function approvalState(annotations: Obj | undefined): { state: "missing" | "bypassed" | "approved" | "invalid"; reason: string } {
  const a = str(annotations?.[approvalAnnotation]);
  if (a === "") return { state: "missing", reason: `protected groups must have approval annotation "${approvalAnnotation}", see https://github.com/kubernetes/enhancements/pull/1111` };
  const t = a.trim();
  if (t.startsWith("unapproved")) return { state: "bypassed", reason: "" };
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/\s]+/.test(t)) return { state: "approved", reason: "" };
  return {
    state: "invalid",
    reason: `protected groups must have approval annotation "${approvalAnnotation}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
  };
}

function validateAPIApproval(crd: Obj, old: Obj | undefined): FieldError[] {
  if (!isProtectedCommunityGroup(str(crd.spec?.group))) return [];
  const now = approvalState(crd.metadata?.annotations);
  if (old && approvalState(old.metadata?.annotations).state === now.state) return [];
  const p = `metadata.annotations[${approvalAnnotation}]`;
  if (now.state === "missing") return [required(p, now.reason)];
  if (now.state === "invalid") return [invalid(p, str(crd.metadata?.annotations?.[approvalAnnotation]), now.reason)];
  return [];
}

function validatePreserveUnknownFields(crd: Obj, old: Obj | undefined): FieldError[] {
  if (old?.spec?.preserveUnknownFields === true) return [];
  if (crd.spec?.preserveUnknownFields === true) {
    return [invalid("spec.preserveUnknownFields", true, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead")];
  }
  return [];
}
