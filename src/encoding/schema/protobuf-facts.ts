// Typed accessors for src/types/generated/protobuf.json: the protobuf messages
// (field names, numbers, types, labels) of every built-in Kubernetes 1.34 type,
// parsed from upstream generated.proto files by scripts/generate-schemas.mjs,
// and how they relate to the OpenAPI (JSON) definitions. No comments.

import { lazyTable } from "./generated-table.js";
import { definitionNameForGVK } from "./schema-facts.js";

export type ProtoScalarType =
  | "double"
  | "float"
  | "int32"
  | "int64"
  | "uint32"
  | "uint64"
  | "sint32"
  | "sint64"
  | "fixed32"
  | "fixed64"
  | "sfixed32"
  | "sfixed64"
  | "bool"
  | "string"
  | "bytes";

export interface ProtoField {
  /** Proto field name; also the JSON name unless `jsonName` is set (and the field is not `inline`). */
  readonly name: string;
  readonly number: number;
  /**
   * A scalar type, or a fully-qualified message name without leading dot
   * (e.g. "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta"). For maps: the value type.
   */
  readonly type: ProtoScalarType | (string & {});
  readonly label: "optional" | "repeated" | "map";
  /** Map key type (maps only; always a scalar, in Kubernetes "string"). */
  readonly mapKey?: string;
  /** Map value type (maps only; same as `type`). */
  readonly mapValue?: string;
  /** JSON property name when it differs from `name` (e.g. "$ref" for JSONSchemaProps.ref). */
  readonly jsonName?: string;
  /**
   * An embedded Go struct: in JSON its message's fields appear directly in the
   * enclosing object (e.g. Volume.volumeSource, Probe.handler, ConfigMapKeySelector.localObjectReference).
   */
  readonly inline?: boolean;
}

export interface ProtoMessage {
  /** Fields sorted by number. */
  readonly fields: readonly ProtoField[];
}

/**
 * JSON form of a message that is not an object of its fields: Time/MicroTime
 * ({type:"string",format:"date-time"}), Quantity ({type:"string"}), IntOrString
 * ({type:"string",format:"int-or-string"}), RawExtension/FieldsV1 ({type:"object"},
 * raw JSON), apiextensions JSON & JSONSchemaPropsOr* ({}: any JSON), and list
 * wrappers ExtraValue / meta.v1 Verbs ({type:"array",items:"string"}).
 */
export interface CustomJsonShape {
  readonly type?: string;
  readonly format?: string;
  readonly items?: string;
}

interface ProtobufFile {
  readonly messages: Readonly<Record<string, ProtoMessage>>;
  readonly definitionToMessage: Readonly<Record<string, string>>;
  readonly jsonNames: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly customJson: Readonly<Record<string, CustomJsonShape>>;
}

const file = lazyTable<ProtobufFile>("protobuf.json");
let index: { messages: Map<string, ProtoMessage>; defToMsg: Map<string, string>; msgToDef: Map<string, string>; customJson: Map<string, CustomJsonShape> } | undefined;
function tables() {
  if (!index) {
    const f = file();
    const defToMsg = new Map<string, string>(Object.entries(f.definitionToMessage));
    index = {
      messages: new Map<string, ProtoMessage>(Object.entries(f.messages)),
      defToMsg,
      msgToDef: new Map<string, string>([...defToMsg].map(([d, m]) => [m, d])),
      customJson: new Map<string, CustomJsonShape>(Object.entries(f.customJson)),
    };
  }
  return index;
}

const SCALARS: ReadonlySet<string> = new Set<ProtoScalarType>([
  "double", "float", "int32", "int64", "uint32", "uint64", "sint32", "sint64",
  "fixed32", "fixed64", "sfixed32", "sfixed64", "bool", "string", "bytes",
]);

/** Every message name, sorted (e.g. "k8s.io.api.core.v1.Pod"). */
export function protoMessageNames(): readonly string[] {
  return [...tables().messages.keys()];
}

/** A message by fully-qualified name (a leading "." is accepted). */
export function getProtoMessage(name: string): ProtoMessage | undefined {
  return tables().messages.get(name.startsWith(".") ? name.slice(1) : name);
}

/** Field of a message by proto field number. */
export function protoFieldByNumber(message: string, num: number): ProtoField | undefined {
  return getProtoMessage(message)?.fields.find((f) => f.number === num);
}

/** Field of a message by proto field name. */
export function protoFieldByName(message: string, name: string): ProtoField | undefined {
  return getProtoMessage(message)?.fields.find((f) => f.name === name);
}

/** Whether a field type is a protobuf scalar (otherwise it names a message). */
export function isProtoScalarType(type: string): type is ProtoScalarType {
  return SCALARS.has(type);
}

/** JSON property name of a (non-inline) field. */
export function jsonNameOf(field: ProtoField): string {
  return field.jsonName ?? field.name;
}

/** Message of an OpenAPI definition ("io.k8s.api.core.v1.Pod" → "k8s.io.api.core.v1.Pod"). */
export function protoMessageForDefinition(definition: string): string | undefined {
  return tables().defToMsg.get(definition);
}

/** OpenAPI definition of a message ("k8s.io.api.core.v1.Pod" → "io.k8s.api.core.v1.Pod"). */
export function definitionForProtoMessage(message: string): string | undefined {
  return tables().msgToDef.get(message);
}

/** Message of a served group-version-kind (core group is ""), e.g. ("apps","v1","Deployment") → "k8s.io.api.apps.v1.Deployment". */
export function protoMessageForGVK(group: string, version: string, kind: string): string | undefined {
  const def = definitionNameForGVK(group, version, kind);
  return def === undefined ? undefined : tables().defToMsg.get(def);
}

/** JSON form of a message whose JSON is not an object of its fields; undefined for ordinary messages. */
export function customJsonShape(message: string): CustomJsonShape | undefined {
  return tables().customJson.get(message);
}

/** Fields whose JSON name differs from the proto name, per message: { protoName: jsonName }. */
export function protoJsonNameOverrides(): Readonly<Record<string, Readonly<Record<string, string>>>> {
  return file().jsonNames;
}
