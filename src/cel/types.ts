// CEL types as the checker sees them: primitives, list/map, optional, type-of, opaque library
// types (kubernetes.Quantity, net.IP, …), object types built from an OpenAPI schema, and type
// parameters for generic overloads. A type may carry the size bounds the cost estimator needs
// (from maxLength / maxItems / maxProperties, or what fits in a request).
export type CelType =
  | PrimitiveType
  | ListType
  | MapType
  | OptionalType
  | TypeOfType
  | OpaqueType
  | ObjectType
  | TypeParamType;

export type PrimitiveKind =
  | "dyn"
  | "error"
  | "null"
  | "bool"
  | "int"
  | "uint"
  | "double"
  | "string"
  | "bytes"
  | "timestamp"
  | "duration"
  | "any";

export interface SizeBounds {
  /** Largest size a value of this type can have: characters, bytes, items or properties. */
  readonly maxSize?: number;
  readonly minSize?: number;
}

export interface PrimitiveType extends SizeBounds {
  readonly kind: PrimitiveKind;
}

export interface ListType extends SizeBounds {
  readonly kind: "list";
  readonly elem: CelType;
}

export interface MapType extends SizeBounds {
  readonly kind: "map";
  readonly key: CelType;
  readonly value: CelType;
}

export interface OptionalType {
  readonly kind: "optional";
  readonly of: CelType;
}

/** The type of a type value: `type(int)`; `of` absent for the bare `type`. */
export interface TypeOfType {
  readonly kind: "type";
  readonly of?: CelType;
}

/** A library's value type known by name only: `kubernetes.Quantity`, `net.IP`, `net.URL`, … */
export interface OpaqueType {
  readonly kind: "opaque";
  readonly name: string;
  readonly params: readonly CelType[];
}

export interface ObjectField {
  readonly type: CelType;
  /** Listed in the schema's `required`: cost and presence reasoning may rely on it. */
  readonly required: boolean;
}

/**
 * A message-like type: an OpenAPI object with `properties`, or a type the server declares. Keys
 * of `fields` are the property names as written (`x-y`, `namespace`); for schema types CEL
 * reaches them escaped (`x__dash__y`, `__namespace__`), see ./escaping.ts.
 */
export interface ObjectType extends SizeBounds {
  readonly kind: "object";
  readonly name: string;
  readonly fields: ReadonlyMap<string, ObjectField>;
  /**
   * Made from an OpenAPI schema: CEL reaches the properties only by their escaped names, as
   * Kubernetes escapes schema properties. Types declared by the server itself (AdmissionRequest,
   * UserInfo, …) name their fields plainly (`request.namespace`).
   */
  readonly escapedFieldNames?: boolean;
  /**
   * Every field name is a field of this type, of this type (MutatingAdmissionPolicy's `Object`
   * types: `Object.spec{replicas: 3}` names fields the server does not declare).
   */
  readonly openFields?: CelType;
}

export interface TypeParamType {
  readonly kind: "typeParam";
  readonly name: string;
}

const primitive = (kind: PrimitiveKind): PrimitiveType => Object.freeze({ kind });

export const DynType = primitive("dyn");
export const ErrorType = primitive("error");
export const NullType = primitive("null");
export const BoolType = primitive("bool");
export const IntType = primitive("int");
export const UintType = primitive("uint");
export const DoubleType = primitive("double");
export const StringType = primitive("string");
export const BytesType = primitive("bytes");
export const TimestampType = primitive("timestamp");
export const DurationType = primitive("duration");
export const AnyType = primitive("any");

export const listOf = (elem: CelType, bounds: SizeBounds = {}): ListType => ({ kind: "list", elem, ...bounds });
export const mapOf = (key: CelType, value: CelType, bounds: SizeBounds = {}): MapType => ({ kind: "map", key, value, ...bounds });
export const optionalOf = (of: CelType): OptionalType => ({ kind: "optional", of });
export const typeOf = (of?: CelType): TypeOfType => (of ? { kind: "type", of } : { kind: "type" });
export const opaque = (name: string, ...params: CelType[]): OpaqueType => ({ kind: "opaque", name, params });
export const typeParam = (name: string): TypeParamType => ({ kind: "typeParam", name });

/** The type's name as cel-go prints it in messages: `list(int)`, `map(string, dyn)`, `google.protobuf.Timestamp`. */
export function formatType(t: CelType): string {
  switch (t.kind) {
    case "null":
      return "null_type";
    case "timestamp":
      return "google.protobuf.Timestamp";
    case "duration":
      return "google.protobuf.Duration";
    case "any":
      return "google.protobuf.Any";
    case "list":
      return `list(${formatType(t.elem)})`;
    case "map":
      return `map(${formatType(t.key)}, ${formatType(t.value)})`;
    case "optional":
      return `optional_type(${formatType(t.of)})`;
    case "type":
      return t.of ? `type(${formatType(t.of)})` : "type";
    case "opaque":
      return t.params.length ? `${t.name}(${t.params.map(formatType).join(", ")})` : t.name;
    case "object":
      return t.name;
    case "typeParam":
      return t.name;
    default:
      return t.kind;
  }
}
