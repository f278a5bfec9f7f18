// Server-side field validation (fieldValidation=Ignore|Warn|Strict): fields the schema does not
// declare are dropped from the object (as decoding into a typed struct does), and reported as
// warnings or a 400 together with duplicate fields, in upstream's wording.
import { quantityError } from "../apimachinery/quantity.js";
import { goTimeParseError } from "../apimachinery/go-time-parse.js";
import { goBase64Error } from "../apimachinery/go-base64.js";
import { ApiError, invalid } from "../apimachinery/errors.js";
import { notSupported } from "../apimachinery/validation.js";
import { bareDefinitionName, resolveNode, type DefinitionLookup, type SchemaNode } from "../apimachinery/schema.js";
import { nullRule } from "../encoding/schema/null-facts.js";
import { definitionNameOf, type TypeSchema } from "./type-schema.js";
import { goQuote } from "../apimachinery/go-quote.js";
import { isPlainObject } from "../apimachinery/json-value.js";

export type FieldValidation = "Ignore" | "Warn" | "Strict";

export function parseFieldValidation(q: URLSearchParams, optionsKind: string): FieldValidation {
  const v = q.get("fieldValidation");
  if (v === null || v === "") return "Warn";
  if (v === "Ignore" || v === "Warn" || v === "Strict") return v;
  throw invalid({ group: "meta.k8s.io", kind: optionsKind }, "", [notSupported("fieldValidation", v, ["", "Ignore", "Strict", "Warn"])]);
}

/** A value the typed decoder cannot take (upstream: a json.UnmarshalTypeError, answered 400). */
export interface TypeMismatch {
  /** What the JSON held: "string", "number", "number 1.5", "bool", "array", "object". */
  value: string;
  /** Go-style name of the struct holding the field (e.g. "ObjectMeta"), and the field's path. */
  struct: string;
  field: string;
  /** Go-style type of the field (e.g. "map[string]string", "int32", "[]v1.Container"). */
  type: string;
  /** The decoder's own error for the value (a self-decoding type's, base64's), said instead. */
  message?: string;
}

export interface DecodeFindings {
  unknown: string[];
  mismatch?: TypeMismatch;
  /** Found by pruning against a custom resource's schema (decoded as unstructured). */
  unstructured?: boolean;
}

function shortName(ref: string): string {
  const name = ref.replace(/^#\/definitions\//, "");
  return name.slice(name.lastIndexOf(".") + 1);
}

function goTypeOf(s: SchemaNode | undefined): string {
  if (!s) return "interface {}";
  if (s.$ref) return `v1.${shortName(s.$ref)}`;
  if (s["x-kubernetes-int-or-string"]) return "intstr.IntOrString";
  switch (s.type) {
    case "string":
      return s.format === "byte" ? "[]uint8" : "string";
    case "integer":
      return s.format === "int64" ? "int64" : "int32";
    case "number":
      return "float64";
    case "boolean":
      return "bool";
    case "array":
      return `[]${goTypeOf(s.items)}`;
    case "object":
      return s.additionalProperties && typeof s.additionalProperties === "object" ? `map[string]${goTypeOf(s.additionalProperties)}` : "map[string]interface {}";
  }
  return "interface {}";
}

function jsonKindOf(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return "number";
  if (typeof v === "string") return "string";
  return "object";
}

/**
 * The types that decode themselves (their UnmarshalJSON), keyed by the end of their reference:
 * the error each gives for a value ("" when it takes it; some take any JSON at all). Their errors
 * name no struct field: Go returns an unmarshaler's error as it is.
 */
const takesAnything = () => "";
const selfDecoders: [suffix: string, decode: (value: unknown) => string][] = [
  ...[".RawExtension", ".JSON", ".JSONSchemaPropsOrArray", ".JSONSchemaPropsOrBool", ".JSONSchemaPropsOrStringArray", ".FieldsV1"].map((suffix): [string, () => string] => [suffix, takesAnything]),
  [".resource.Quantity", (v) => quantityError(v) ?? ""],
  [".meta.v1.Time", (v) => (typeof v === "string" ? (goTimeParseError(v) ?? "") : stringExpected(v))],
  [".meta.v1.MicroTime", (v) => (typeof v === "string" ? (goTimeParseError(v, true) ?? "") : stringExpected(v))],
  [".intstr.IntOrString", (v) => (typeof v === "string" ? "" : int32Error(v))],
];
/** The decoder per reference (null: none): every write asks it of every referencing node it walks. */
const selfDecoderOf = new Map<string, ((value: unknown) => string) | null>();

/** The self-decoding type's error for `value` ("" when it takes it), or undefined when `ref` is no such type. */
function selfDecodingError(ref: string, value: unknown): string | undefined {
  let decode = selfDecoderOf.get(ref);
  if (decode === undefined) selfDecoderOf.set(ref, (decode = selfDecoders.find(([suffix]) => ref.endsWith(suffix))?.[1] ?? null));
  return decode ? decode(value) : undefined;
}

/**
 * Whether an integer fits the Go type its format names (int32; int64, where a double cannot tell
 * 2^63-1 from 2^63, so only what is past 2^63 is out). Go's decoder refuses what overflows.
 */
function fitsFormat(n: number, format: string | undefined): boolean {
  if (format === "int32") return n >= -(2 ** 31) && n < 2 ** 31;
  return n >= -(2 ** 63) && n <= 2 ** 63;
}

const stringExpected = (v: unknown) => `json: cannot unmarshal ${jsonKindOf(v)} into Go value of type string`;

/** IntOrString's integer form: json.Unmarshal into an int32. */
function int32Error(v: unknown): string {
  if (typeof v !== "number") return `json: cannot unmarshal ${jsonKindOf(v)} into Go value of type int32`;
  return Number.isInteger(v) && fitsFormat(v, "int32") ? "" : `json: cannot unmarshal number ${String(v)} into Go value of type int32`;
}

/** What a body is decoded against: its kind's definition (none: keep every field) and how to follow references. */
export interface DecodeTarget {
  node: SchemaNode | undefined;
  /** The definition `node` is (where a null in its fields is looked up). */
  name?: string;
  lookup: DefinitionLookup;
  /** Set for schemas that prune rather than decode (custom resources, see TypeSchema.prune). */
  prune?: (value: unknown) => string[];
}

/** The decode target of objects of `apiVersion`/`kind` under a type's schema. */
export function decodeTarget(schema: TypeSchema, tm: { apiVersion: string; kind: string }): DecodeTarget {
  const prune = schema.prune;
  const name = definitionNameOf(schema, tm.apiVersion, tm.kind);
  return { node: name === undefined ? undefined : schema.definition(name), name, lookup: schema.definition, ...(prune ? { prune: (v: unknown) => prune(v, tm.apiVersion, tm.kind) } : {}) };
}

/**
 * Decodes `value` against its schema the way a typed decoder would: fields the schema does not
 * declare are removed and listed; the first value of the wrong JSON type is reported (and the
 * walk stops, as Go's decoder reports one).
 */
export function decodeAgainstSchema(value: unknown, target: DecodeTarget, o: DecodeOptions = {}): DecodeFindings {
  if (target.prune) return decodeCustomResource(value, target, target.prune, o);
  const found: DecodeFindings = { unknown: [] };
  new SchemaWalk(found, target.lookup, { rootDefinition: target.name, keepNulls: o.keepNulls }).walk(value, target.node, "");
  return found;
}

export interface DecodeOptions {
  /**
   * Leave nulls as sent: a server-side apply configuration is read as unstructured upstream (its
   * nulls are fields the applier sets, and owns); the apply engine leaves nulls out of the merged
   * object it stores (src/apply/merge.ts).
   */
  keepNulls?: boolean;
}

/**
 * A custom resource is decoded as unstructured, then upstream reads its metadata alone into an
 * ObjectMeta (apiextensions' GetObjectMeta) before pruning the rest: a value of the wrong type
 * there is refused as that decode words it (`Go struct field ObjectMeta.labels`), and fields
 * ObjectMeta does not have are dropped and reported as `metadata.<field>`, before the pruned ones.
 */
function decodeCustomResource(value: unknown, target: DecodeTarget, prune: (value: unknown) => string[], o: DecodeOptions): DecodeFindings {
  const found: DecodeFindings = { unknown: [], unstructured: true };
  const metadata = isPlainObject(value) ? value.metadata : undefined;
  const metaNode = target.node ? resolveNode(target.lookup, target.node).properties?.metadata : undefined;
  if (metadata !== undefined && metaNode) new SchemaWalk(found, target.lookup, { unknownPrefix: "metadata.", keepNulls: o.keepNulls }).walk(metadata, metaNode, "");
  if (found.mismatch) return found;
  found.unknown.push(...prune(value));
  return found;
}

/**
 * A null where the Go type holds a value the decoder leaves at its zero: what Go encodes for that
 * (the field left out, or its zero value), as upstream stores and serves the decoded struct.
 */
function zeroNull(obj: Record<string, unknown>, key: string, definition: string): void {
  const rule = definition ? nullRule(bareDefinitionName(definition), key) : undefined;
  if (rule === "omit") delete obj[key];
  else if (rule !== undefined) obj[key] = structuredClone(rule.zero);
}

/**
 * One decode's walk. It runs over every field of every write, so the path is a stack of
 * segments rendered only for a finding, and no closure is made per node.
 */
class SchemaWalk {
  private readonly path: (string | number)[] = [];
  /** Where in `path` a segment is a map's key (not a struct's field). */
  private readonly mapKeys: number[] = [];

  /** Put before the path of an unknown field (not of a mismatch): where the walked value sits in the object. */
  private readonly unknownPrefix: string;
  /** The definition of the walked value itself, when the walk starts at one rather than at a reference. */
  private readonly rootDefinition: string;
  private readonly keepNulls: boolean;

  constructor(
    private readonly found: DecodeFindings,
    private readonly lookup: DefinitionLookup,
    o: { unknownPrefix?: string; rootDefinition?: string; keepNulls?: boolean } = {},
  ) {
    this.unknownPrefix = o.unknownPrefix ?? "";
    this.rootDefinition = o.rootDefinition ?? "";
    this.keepNulls = o.keepNulls ?? false;
  }

  /** `structRef`: the $ref of the struct holding the value ("" at the top), named only in a finding. */
  walk(value: unknown, node: SchemaNode | undefined, structRef: string): void {
    if (this.found.mismatch || !node || value === null || value === undefined) return;
    const ref = node.$ref;
    const own = ref ? selfDecodingError(ref, value) : undefined;
    if (own !== undefined) {
      if (own) this.refuse(own);
      return;
    }
    const s = ref ? resolveNode(this.lookup, node) : node;
    if (s["x-kubernetes-preserve-unknown-fields"]) return;
    if (s["x-kubernetes-int-or-string"]) {
      if (typeof value !== "string" && typeof value !== "number") this.mismatch(value, node, s, structRef);
      return;
    }
    switch (s.type) {
      case "string":
        if (typeof value !== "string") this.mismatch(value, node, s, structRef);
        else if (s.format === "byte") {
          // A []byte: the decoder reads standard base64 and fails the body where it stops.
          const refused = goBase64Error(value);
          if (refused !== undefined) this.refuse(refused);
        }
        return;
      case "integer":
        if (typeof value !== "number" || !Number.isInteger(value) || !fitsFormat(value, s.format)) this.mismatch(value, node, s, structRef);
        return;
      case "number":
        if (typeof value !== "number") this.mismatch(value, node, s, structRef);
        return;
      case "boolean":
        if (typeof value !== "boolean") this.mismatch(value, node, s, structRef);
        return;
      case "array":
        if (!Array.isArray(value)) return this.mismatch(value, node, s, structRef);
        for (let i = 0; i < value.length; i++) {
          this.path.push(i);
          this.walk(value[i], s.items, structRef);
          this.path.pop();
        }
        return;
    }
    if (typeof value !== "object" || Array.isArray(value)) {
      if (s.type === "object" || s.properties) this.mismatch(value, node, s, structRef);
      return;
    }
    const obj = value as Record<string, unknown>;
    if (s.properties) {
      const here = ref ? ref : structRef;
      for (const key of Object.keys(obj)) {
        const prop = s.properties[key];
        this.path.push(key);
        if (prop) {
          if (obj[key] === null && !this.keepNulls) zeroNull(obj, key, here || this.rootDefinition);
          this.walk(obj[key], prop, here);
        } else {
          this.found.unknown.push(this.unknownPrefix + this.rendered());
          delete obj[key];
        }
        this.path.pop();
      }
      return;
    }
    if (s.additionalProperties && typeof s.additionalProperties === "object") {
      for (const key of Object.keys(obj)) {
        this.path.push(key);
        this.mapKeys.push(this.path.length - 1);
        this.walk(obj[key], s.additionalProperties, structRef);
        this.mapKeys.pop();
        this.path.pop();
      }
    }
  }

  /** The decoder's own error ends the walk, as Go returns it. */
  private refuse(message: string): void {
    this.found.mismatch = { value: "", struct: "", field: this.rendered(), type: "", message };
  }

  private mismatch(value: unknown, node: SchemaNode, s: SchemaNode, structRef: string): void {
    const kind = jsonKindOf(value);
    this.found.mismatch = {
      value: kind === "number" && s.type === "integer" && (!Number.isInteger(value) || !fitsFormat(value as number, s.format)) ? `number ${String(value)}` : kind,
      struct: structRef ? shortName(structRef) : "",
      field: this.fieldStack(),
      type: goTypeOf(node),
    };
  }

  /**
   * The struct fields on the way, as Go's decoder names a value of the wrong type
   * (`spec.containers.name`): it counts neither array indexes nor map keys.
   */
  private fieldStack(): string {
    let out = "";
    for (let i = 0; i < this.path.length; i++) {
      const seg = this.path[i]!;
      if (typeof seg === "number" || this.mapKeys.includes(i)) continue;
      out += out ? `.${seg}` : seg;
    }
    return out;
  }

  /** The current path as upstream prints an unknown field's: `spec.containers[0].name`. */
  private rendered(): string {
    let out = "";
    for (const seg of this.path) out += typeof seg === "number" ? `[${seg}]` : out ? `.${seg}` : seg;
    return out;
  }
}

/** The 400 a typed decoder gives for a value of the wrong type (upstream wording). */
export function typeMismatchError(t: { kind: string; version: string }, m: TypeMismatch): ApiError {
  const where = m.struct ? `Go struct field ${m.struct}.${m.field}` : "Go value";
  const why = m.message ?? `json: cannot unmarshal ${m.value} into ${where} of type ${m.type}`;
  return new ApiError(400, "BadRequest", `${t.kind} in version ${goQuote(t.version)} cannot be handled as a ${t.kind}: ${why}`);
}

/**
 * Applies the directive to what decoding found: returns the warnings to send (Warn), nothing
 * (Ignore), or throws 400 listing every field (Strict).
 */
export function fieldValidationOutcome(
  mode: FieldValidation,
  t: { kind: string; version: string },
  unknown: string[],
  duplicates: string[],
  /** Decoded as unstructured (custom resources): upstream reports every duplicate, then every unknown field. */
  unstructured = false,
): string[] {
  if (mode === "Ignore") return [];
  const unknownFields = unknown.map((p) => `unknown field ${goQuote(p)}`);
  const duplicateFields = duplicates.map((p) => `duplicate field ${goQuote(p)}`);
  const problems = unstructured ? [...duplicateFields, ...unknownFields] : [...unknownFields, ...duplicateFields];
  if (problems.length === 0) return [];
  if (mode === "Strict") {
    throw new ApiError(400, "BadRequest", `${t.kind} in version ${goQuote(t.version)} cannot be handled as a ${t.kind}: strict decoding error: ${problems.join(", ")}`);
  }
  return problems;
}
