// Runtime helpers over CEL values shared by the standard library and the interpreter: the runtime
// type of a value, whether a value fits a declared parameter type (dispatch), CEL equality
// (heterogeneous across int/uint/double) and ordering.
import {
  BoolType,
  BytesType,
  DoubleType,
  DurationType,
  DynType,
  IntType,
  NullType,
  StringType,
  TimestampType,
  UintType,
  listOf,
  mapOf,
  optionalOf,
  typeOf,
  type CelType,
} from "../types.js";
import {
  CelDuration,
  CelEvalError,
  CelMap,
  CelOptional,
  CelTimestamp,
  CelTypeValue,
  CelUint,
  type CelOpaque,
  type CelValue,
} from "../value.js";

/** The runtime type values every CEL program can name. */
export const typeValues = {
  int: new CelTypeValue(IntType),
  uint: new CelTypeValue(UintType),
  double: new CelTypeValue(DoubleType),
  bool: new CelTypeValue(BoolType),
  string: new CelTypeValue(StringType),
  bytes: new CelTypeValue(BytesType),
  list: new CelTypeValue(listOf(DynType)),
  map: new CelTypeValue(mapOf(DynType, DynType)),
  null_type: new CelTypeValue(NullType),
  type: new CelTypeValue(typeOf()),
  timestamp: new CelTypeValue(TimestampType),
  duration: new CelTypeValue(DurationType),
  optional_type: new CelTypeValue(optionalOf(DynType)),
} as const;

/** A type's runtime name, as `type(x)` reports it and cel-go prints it in `no such overload: f(int, list)`. */
export function runtimeTypeName(t: CelType): string {
  switch (t.kind) {
    case "null":
      return "null_type";
    case "timestamp":
      return "google.protobuf.Timestamp";
    case "duration":
      return "google.protobuf.Duration";
    case "any":
      return "google.protobuf.Any";
    case "optional":
      return "optional_type";
    case "object":
      return "map";
    case "opaque":
      return t.name;
    case "typeParam":
      return t.name;
    default:
      return t.kind;
  }
}

/** A library value (Quantity, IP, URL, …): it has a type name and its own equality. */
export function isOpaque(v: unknown): v is CelOpaque {
  return typeof v === "object" && v !== null && "celType" in v && typeof (v as CelOpaque).equals === "function";
}

const opaqueTypeValues = new Map<string, CelTypeValue>();

/** `type(v)`. */
export function typeOfValue(v: CelValue): CelTypeValue {
  switch (typeof v) {
    case "boolean":
      return typeValues.bool;
    case "bigint":
      return typeValues.int;
    case "number":
      return typeValues.double;
    case "string":
      return typeValues.string;
  }
  if (v === null) return typeValues.null_type;
  if (Array.isArray(v)) return typeValues.list;
  if (v instanceof CelMap) return typeValues.map;
  if (v instanceof CelUint) return typeValues.uint;
  if (v instanceof Uint8Array) return typeValues.bytes;
  if (v instanceof CelTimestamp) return typeValues.timestamp;
  if (v instanceof CelDuration) return typeValues.duration;
  if (v instanceof CelOptional) return typeValues.optional_type;
  if (v instanceof CelTypeValue) return typeValues.type;
  if (isOpaque(v as object)) {
    const name = (v as CelOpaque).celType.name;
    let tv = opaqueTypeValues.get(name);
    if (!tv) opaqueTypeValues.set(name, (tv = new CelTypeValue((v as CelOpaque).celType)));
    return tv;
  }
  throw new CelEvalError(`unsupported value: ${String(v)}`);
}

export function typeNameOf(v: CelValue): string {
  return runtimeTypeName(typeOfValue(v).type);
}

/** Whether a runtime value fits a declared parameter type (dyn and type parameters fit all). */
export function valueHasType(v: CelValue, t: CelType): boolean {
  switch (t.kind) {
    case "dyn":
    case "any":
    case "typeParam":
      return true;
    case "int":
      return typeof v === "bigint";
    case "double":
      return typeof v === "number";
    case "string":
      return typeof v === "string";
    case "bool":
      return typeof v === "boolean";
    case "uint":
      return v instanceof CelUint;
    case "null":
      return v === null;
    case "bytes":
      return v instanceof Uint8Array;
    case "list":
      return Array.isArray(v);
    case "map":
    case "object":
      return v instanceof CelMap;
    case "timestamp":
      return v instanceof CelTimestamp;
    case "duration":
      return v instanceof CelDuration;
    case "optional":
      return v instanceof CelOptional;
    case "type":
      return v instanceof CelTypeValue;
    case "opaque":
      return v !== null && typeof v === "object" && isOpaque(v as object) && (v as CelOpaque).celType.name === t.name;
    case "error":
      return false;
  }
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A numeric value as a comparable: bigint for int, number for double, uint marked; undefined otherwise. */
type Num = bigint | number | CelUint;
function numeric(v: CelValue): Num | undefined {
  if (typeof v === "bigint" || typeof v === "number" || v instanceof CelUint) return v;
  return undefined;
}

const twoTo63 = 9223372036854775808;
const twoTo64 = 18446744073709551616;

/** cel-go's compareIntDouble / compareUintDouble: out-of-range doubles order first, else compare as doubles. */
function compareIntegerDouble(i: bigint, unsigned: boolean, d: number): number {
  if (Number.isNaN(d)) return NaN;
  if (d < (unsigned ? 0 : -twoTo63)) return 1;
  if (d > (unsigned ? twoTo64 : twoTo63)) return -1;
  const x = Number(i);
  return x < d ? -1 : x > d ? 1 : 0;
}

function compareNumeric(a: Num, b: Num): number {
  if (typeof a === "number") {
    if (typeof b === "number") {
      if (Number.isNaN(a) || Number.isNaN(b)) return NaN;
      return a < b ? -1 : a > b ? 1 : 0;
    }
    const c = compareIntegerDouble(typeof b === "bigint" ? b : b.value, typeof b !== "bigint", a);
    return -c;
  }
  const ai = typeof a === "bigint" ? a : a.value;
  if (typeof b === "number") return compareIntegerDouble(ai, typeof a !== "bigint", b);
  const bi = typeof b === "bigint" ? b : b.value;
  return ai < bi ? -1 : ai > bi ? 1 : 0;
}

/** CEL `==`: heterogeneous numeric equality, deep for lists and maps, false across kinds. */
export function celEquals(a: CelValue, b: CelValue): boolean {
  // The same library value on both sides still asks its own Equal, as cel-go does: upstream's
  // authorizer values are not comparable at all, a quantity from add()/sub() is not equal to itself.
  if (a === b && !(typeof a === "object" && a !== null && isOpaque(a as object))) return typeof a !== "number" || !Number.isNaN(a);
  const na = numeric(a);
  if (na !== undefined) {
    const nb = numeric(b);
    return nb !== undefined && compareNumeric(na, nb) === 0;
  }
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!celEquals(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof CelMap) {
    if (!(b instanceof CelMap) || a.size !== b.size) return false;
    for (const [k, v] of a.entries()) {
      const w = b.get(k);
      if (w === undefined || !celEquals(v, w)) return false;
    }
    return true;
  }
  if (a instanceof Uint8Array) return b instanceof Uint8Array && bytesEqual(a, b);
  if (a instanceof CelTimestamp) return b instanceof CelTimestamp && a.nanos === b.nanos;
  if (a instanceof CelDuration) return b instanceof CelDuration && a.nanos === b.nanos;
  if (a instanceof CelOptional) {
    if (!(b instanceof CelOptional) || a.hasValue !== b.hasValue) return false;
    return !a.hasValue || celEquals(a.value, b.value);
  }
  if (a instanceof CelTypeValue) return b instanceof CelTypeValue && runtimeTypeName(a.type) === runtimeTypeName(b.type);
  if (isOpaque(a as object) && isOpaque(b as object)) {
    const oa = a as CelOpaque;
    const ob = b as CelOpaque;
    return oa.celType.name === ob.celType.name && oa.equals(ob);
  }
  return false;
}

/** Compares strings by code point (Go compares UTF-8 bytes, which orders as code points). */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const surrogate = (c: number) => c >= 0xd800 && c <= 0xdfff;
      if (surrogate(x) !== surrogate(y)) return surrogate(x) ? 1 : -1;
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/**
 * CEL ordering of two values of comparable types: -1, 0, 1, NaN when a double is NaN, or
 * undefined when the types cannot be compared (no such overload).
 */
export function celCompare(a: CelValue, b: CelValue): number | undefined {
  const na = numeric(a);
  if (na !== undefined) {
    const nb = numeric(b);
    return nb === undefined ? undefined : compareNumeric(na, nb);
  }
  if (typeof a === "string") return typeof b === "string" ? compareStrings(a, b) : undefined;
  if (typeof a === "boolean") return typeof b === "boolean" ? (a === b ? 0 : a ? 1 : -1) : undefined;
  if (a instanceof Uint8Array) return b instanceof Uint8Array ? compareBytes(a, b) : undefined;
  if (a instanceof CelTimestamp)
    return b instanceof CelTimestamp ? (a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0) : undefined;
  if (a instanceof CelDuration)
    return b instanceof CelDuration ? (a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0) : undefined;
  return undefined;
}

/** Size as cel-go's Sizer: string code points, bytes, list items, map entries; undefined when unsized. */
export function sizeOf(v: CelValue): number | undefined {
  if (typeof v === "string") {
    let n = 0;
    for (let i = 0; i < v.length; i++) {
      const c = v.charCodeAt(i);
      if (c < 0xd800 || c > 0xdbff) n++;
    }
    return n;
  }
  if (Array.isArray(v)) return v.length;
  if (v instanceof CelMap) return v.size;
  if (v instanceof Uint8Array) return v.length;
  return undefined;
}

export const noSuchOverload = (): CelEvalError => new CelEvalError("no such overload");
