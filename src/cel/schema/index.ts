// Structural OpenAPI v3 schemas (a CRD's openAPIV3Schema, a policy's param/object schema) as CEL
// types, the way Kubernetes declares them (k8s.io/apiserver/pkg/cel/common/schemas.go
// SchemaDeclType, types.go MaybeAssignTypeName, apiextensions' WithTypeAndObjectMeta): objects
// with properties become object types named by their path, additionalProperties maps,
// arrays lists, int-or-string dyn, string formats timestamp/duration/bytes — each with the
// size bound the cost estimator uses (maxLength / maxItems / maxProperties or what fits in a
// 3 MiB request).
import { escapePropertyName } from "../escaping.js";
import {
  maxDatetimeSizeJson,
  maxDurationSizeJson,
  maxRequestSizeBytes,
  jsonDateSize,
  minBoolSize,
  minDatetimeSizeJson,
  minDurationSizeJson,
  minNumberSize,
  minStringSize,
} from "../cost/constants.js";
import type { CelType, ObjectField, ObjectType } from "../types.js";

/** The parts of a structural schema the conversion reads (other keys are ignored). */
export interface StructuralSchema {
  readonly type?: string;
  readonly format?: string;
  readonly properties?: Readonly<Record<string, StructuralSchema>>;
  readonly additionalProperties?: StructuralSchema | boolean;
  readonly items?: StructuralSchema;
  readonly required?: readonly string[];
  readonly maxLength?: number;
  readonly maxItems?: number;
  readonly maxProperties?: number;
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
  readonly "x-kubernetes-int-or-string"?: boolean;
  readonly "x-kubernetes-embedded-resource"?: boolean;
  readonly "x-kubernetes-preserve-unknown-fields"?: boolean;
  readonly [key: string]: unknown;
}

export interface SchemaToCelTypeOptions {
  /**
   * The schema is the root of a resource (a custom resource, or an x-kubernetes-embedded-resource
   * object): apiVersion, kind, metadata.name and metadata.generateName are always declared.
   */
  readonly isResourceRoot?: boolean;
  /**
   * Name of the root object type; nested objects are named `<name>.<field>`, `<name>.@idx`
   * (list items), `<name>.@elem` (map values), fields escaped. Kubernetes names a CRD rule's
   * root `selfType<n>`. Default "selfType".
   */
  readonly typeName?: string;
}

/** A CEL type with the smallest JSON serialization of its values (what upstream's bounds derive from). */
interface Converted {
  readonly type: CelType;
  readonly minSerializedSize: number;
}

/** The largest string a request can carry: 3 MiB minus the quotes. */
const maxStringPerRequest = maxRequestSizeBytes - 2;

const zeroIfNegative = (n: number): number => (n < 0 ? 0 : n);
const utf8Length = (s: string): number => Buffer.byteLength(s, "utf8");

/**
 * The CEL type of values of `schema`, or undefined when Kubernetes does not expose the schema to
 * CEL (no type, and not int-or-string; arrays without items; maps whose values are not exposed).
 * Objects with x-kubernetes-preserve-unknown-fields expose only their declared properties.
 */
export function schemaToCelType(schema: StructuralSchema, options: SchemaToCelTypeOptions = {}): CelType | undefined {
  const converted = convert(schema, options.isResourceRoot ?? false);
  return converted && assignNames(converted.type, options.typeName ?? "selfType");
}

/**
 * The type of `self` for the x-kubernetes-validations of a schema node: the node's own type, a
 * resource root when it is the CRD's root or an embedded resource.
 */
export function selfTypeOf(node: StructuralSchema, options: { isRoot?: boolean; typeName?: string } = {}): CelType | undefined {
  return schemaToCelType(node, {
    isResourceRoot: (options.isRoot ?? false) || node["x-kubernetes-embedded-resource"] === true,
    typeName: options.typeName,
  });
}

/** One step from a schema node to a nested one. */
export type SchemaStep = { readonly property: string } | "items" | "additionalProperties";

/** The schema node a path of steps reaches from `root`, or undefined. */
export function schemaAt(root: StructuralSchema, path: readonly SchemaStep[]): StructuralSchema | undefined {
  let cur: StructuralSchema | undefined = root;
  for (const step of path) {
    if (!cur) return undefined;
    if (step === "items") cur = cur.items;
    else if (step === "additionalProperties") cur = typeof cur.additionalProperties === "object" ? cur.additionalProperties : undefined;
    else cur = cur.properties?.[step.property];
  }
  return cur;
}

function convert(s: StructuralSchema, isResourceRoot: boolean): Converted | undefined {
  if (s["x-kubernetes-int-or-string"] === true) {
    const maxSize = s.maxLength !== undefined ? zeroIfNegative(s.maxLength) * 4 : maxStringPerRequest;
    return { type: { kind: "dyn", maxSize }, minSerializedSize: 1 };
  }
  if (isResourceRoot) s = withTypeAndObjectMeta(s);
  switch (s.type) {
    case "array": {
      if (!s.items) return undefined;
      const items = convert(s.items, s.items["x-kubernetes-embedded-resource"] === true);
      if (!items) return undefined;
      const maxSize = s.maxItems !== undefined ? zeroIfNegative(s.maxItems) : Math.floor(maxStringPerRequest / (items.minSerializedSize + 1));
      return { type: { kind: "list", elem: items.type, maxSize }, minSerializedSize: 2 };
    }
    case "object": {
      const ap = s.additionalProperties;
      if (ap !== undefined && typeof ap === "object" && ap !== null) {
        const values = convert(ap, ap["x-kubernetes-embedded-resource"] === true);
        if (!values) return undefined;
        const maxSize =
          s.maxProperties !== undefined ? zeroIfNegative(s.maxProperties) : Math.floor(maxStringPerRequest / (values.minSerializedSize + 6));
        return { type: { kind: "map", key: { kind: "string" }, value: values.type, maxSize }, minSerializedSize: 2 };
      }
      const required = new Set(s.required ?? []);
      const fields = new Map<string, ObjectField>();
      let minSerializedSize = 2;
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        const field = convert(prop, prop["x-kubernetes-embedded-resource"] === true);
        if (!field) continue;
        if (escapePropertyName(name) !== undefined) fields.set(name, { type: field.type, required: required.has(name) });
        if (required.has(name) && prop.default === undefined) minSerializedSize += utf8Length(name) + field.minSerializedSize + 4;
      }
      const type: ObjectType = { kind: "object", name: "object", fields, escapedFieldNames: true };
      return { type, minSerializedSize };
    }
    case "string":
      switch (s.format) {
        case "byte":
          return {
            type: { kind: "bytes", maxSize: s.maxLength !== undefined ? zeroIfNegative(s.maxLength) : maxStringLengthPerRequest(s) },
            minSerializedSize: minStringSize,
          };
        case "duration":
          return { type: { kind: "duration", maxSize: maxStringLengthPerRequest(s) }, minSerializedSize: minDurationSizeJson };
        case "date":
          return { type: { kind: "timestamp", maxSize: maxStringLengthPerRequest(s) }, minSerializedSize: jsonDateSize };
        case "date-time":
          return { type: { kind: "timestamp", maxSize: maxStringLengthPerRequest(s) }, minSerializedSize: minDatetimeSizeJson };
      }
      return { type: { kind: "string", maxSize: maxStringLength(s) }, minSerializedSize: minStringSize };
    case "boolean":
      return { type: { kind: "bool" }, minSerializedSize: minBoolSize };
    case "number":
      return { type: { kind: "double" }, minSerializedSize: minNumberSize };
    case "integer":
      return { type: { kind: "int" }, minSerializedSize: minNumberSize };
  }
  return undefined;
}

/** Bound of a plain string: maxLength × 4 (code points to bytes), the longest enum value, or a request's worth. */
function maxStringLength(s: StructuralSchema): number {
  if (s.maxLength !== undefined) return zeroIfNegative(s.maxLength) * 4;
  if (s.enum && s.enum.length > 0) {
    let longest = 0;
    for (const v of s.enum) if (typeof v === "string") longest = Math.max(longest, utf8Length(v));
    return longest;
  }
  return maxStringLengthPerRequest(s);
}

/** upstream estimateMaxStringLengthPerRequest. */
function maxStringLengthPerRequest(s: StructuralSchema): number {
  if (s["x-kubernetes-int-or-string"] === true) return maxStringPerRequest;
  switch (s.format) {
    case "duration":
      return maxDurationSizeJson;
    case "date":
      return jsonDateSize;
    case "date-time":
      return maxDatetimeSizeJson;
    default:
      return maxStringPerRequest;
  }
}

const plainString: StructuralSchema = { type: "string" };

/** apiVersion, kind and metadata.{name,generateName} declared at a resource root (upstream WithTypeAndObjectMeta). */
function withTypeAndObjectMeta(s: StructuralSchema): StructuralSchema {
  const p = s.properties;
  const meta = p?.metadata;
  if (
    p !== undefined &&
    p.kind?.type === "string" &&
    p.apiVersion?.type === "string" &&
    meta?.type === "object" &&
    meta.properties !== undefined &&
    meta.properties.name?.type === "string" &&
    meta.properties.generateName?.type === "string"
  )
    return s;
  return {
    ...s,
    properties: {
      ...p,
      kind: plainString,
      apiVersion: plainString,
      metadata: { type: "object", properties: { name: plainString, generateName: plainString } },
    },
  };
}

/** upstream MaybeAssignTypeName: objects named by their path from the root, fields escaped. */
function assignNames(t: CelType, name: string): CelType {
  switch (t.kind) {
    case "object": {
      const fields = new Map<string, ObjectField>();
      for (const [prop, f] of t.fields) {
        fields.set(prop, { ...f, type: assignNames(f.type, `${name}.${escapePropertyName(prop)!}`) });
      }
      return { ...t, name, fields };
    }
    case "map":
      return { ...t, value: assignNames(t.value, `${name}.@elem`) };
    case "list":
      return { ...t, elem: assignNames(t.elem, `${name}.@idx`) };
    default:
      return t;
  }
}
