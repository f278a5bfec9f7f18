// CEL's standard library as cel-go declares it (common/stdlib/standard.go): operators, size,
// conversions, string predicates, `matches`, timestamp and duration accessors — every overload
// under cel-go's overload id, with cel-go's semantics and error texts.
import { overload, memberOverload, type CelLibrary, type FunctionDecl, type OverloadDecl } from "../library.js";
import { compileRegex } from "../regex.js";
import {
  BoolType,
  BytesType,
  DoubleType,
  DurationType,
  DynType,
  IntType,
  StringType,
  TimestampType,
  UintType,
  listOf,
  mapOf,
  typeOf,
  typeParam,
} from "../types.js";
import { CelDuration, CelEvalError, CelMap, CelTimestamp, CelUint, type CelValue } from "../value.js";
import { celCompare, celEquals, noSuchOverload, sizeOf, typeNameOf, typeOfValue, typeValues } from "./values.js";
import {
  NANOS,
  checkedDuration,
  checkedTimestamp,
  civilTime,
  floorDiv,
  formatDuration,
  formatTimestamp,
  maxUnixSeconds,
  minUnixSeconds,
  parseDuration,
  parseTimestamp,
  type CivilTime,
} from "./time.js";

const A = typeParam("A");
const B = typeParam("B");
const listA = listOf(A);
const mapAB = mapOf(A, B);
const AB = { typeParams: ["A", "B"] } as const;
const TA = { typeParams: ["A"] } as const;

export const maxInt64 = (1n << 63n) - 1n;
export const minInt64 = -(1n << 63n);
export const maxUint64 = (1n << 64n) - 1n;

const intOverflow = () => new CelEvalError("integer overflow");
const uintOverflow = () => new CelEvalError("unsigned integer overflow");

export function checkInt(v: bigint): bigint {
  if (v > maxInt64 || v < minInt64) throw intOverflow();
  return v;
}
export function checkUint(v: bigint): CelUint {
  if (v > maxUint64 || v < 0n) throw uintOverflow();
  return new CelUint(v);
}

const int = (v: CelValue) => v as bigint;
const uint = (v: CelValue) => (v as CelUint).value;
const dbl = (v: CelValue) => v as number;
const str = (v: CelValue) => v as string;
const bytes = (v: CelValue) => v as Uint8Array;
const ts = (v: CelValue) => (v as CelTimestamp).nanos;
const dur = (v: CelValue) => (v as CelDuration).nanos;

function fn(name: string, ...overloads: OverloadDecl[]): FunctionDecl {
  return { name, overloads };
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

// ---------- comparisons ----------
type Cmp = "less" | "less_equals" | "greater" | "greater_equals";
const cmpTest: Record<Cmp, (c: number) => boolean> = {
  less: (c) => c < 0,
  less_equals: (c) => c <= 0,
  greater: (c) => c > 0,
  greater_equals: (c) => c >= 0,
};
const comparable: readonly [string, import("../types.js").CelType, import("../types.js").CelType][] = [
  ["bool", BoolType, BoolType],
  ["int64", IntType, IntType],
  ["int64_double", IntType, DoubleType],
  ["int64_uint64", IntType, UintType],
  ["uint64", UintType, UintType],
  ["uint64_double", UintType, DoubleType],
  ["uint64_int64", UintType, IntType],
  ["double", DoubleType, DoubleType],
  ["double_int64", DoubleType, IntType],
  ["double_uint64", DoubleType, UintType],
  ["string", StringType, StringType],
  ["bytes", BytesType, BytesType],
  ["timestamp", TimestampType, TimestampType],
  ["duration", DurationType, DurationType],
];
function comparison(name: string, prefix: Cmp): FunctionDecl {
  const test = cmpTest[prefix];
  const impl = (args: readonly CelValue[]) => {
    const c = celCompare(args[0]!, args[1]!);
    if (c === undefined) throw noSuchOverload();
    return !Number.isNaN(c) && test(c);
  };
  return fn(name, ...comparable.map(([suffix, l, r]) => overload(`${prefix}_${suffix}`, [l, r], BoolType, impl)));
}

// ---------- conversions ----------
function goFormatG(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "+Inf";
  if (x === -Infinity) return "-Inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const e = x.toExponential(); // shortest round-trip digits
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(e)!;
  const exp = +m[4]!;
  const digits = m[2]! + (m[3] ?? "");
  if (exp < -4 || exp >= 6) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const ae = Math.abs(exp);
    return `${m[1]}${mant}e${exp < 0 ? "-" : "+"}${ae < 10 ? "0" + ae : ae}`;
  }
  if (exp < 0) return `${m[1]}0.${"0".repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return m[1] + digits.padEnd(exp + 1, "0");
  return `${m[1]}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** `string(double)`: Go's `%g`. */
export function formatDouble(x: number): string {
  return goFormatG(x);
}

const utf8Decoder = new TextDecoder("utf-8", { fatal: true });
const utf8Encoder = new TextEncoder();

function convErr(from: string, to: string): CelEvalError {
  return new CelEvalError(`type conversion error from '${from}' to '${to}'`);
}

function stringToInt(s: string): bigint {
  if (!/^[+-]?\d+$/.test(s)) throw convErr("string", "int");
  const v = BigInt(s);
  if (v > maxInt64 || v < minInt64) throw convErr("string", "int");
  return v;
}
function stringToUint(s: string): CelUint {
  if (!/^\+?\d+$/.test(s)) throw convErr("string", "uint");
  const v = BigInt(s);
  if (v > maxUint64) throw convErr("string", "uint");
  return new CelUint(v);
}
function stringToDouble(s: string): number {
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(s);
  if (special) return special[2]!.toLowerCase() === "nan" ? NaN : special[1] === "-" ? -Infinity : Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) throw convErr("string", "double");
  const v = Number(s);
  if (!Number.isFinite(v)) throw convErr("string", "double");
  return v;
}
const trueStrings = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const falseStrings = new Set(["0", "f", "F", "FALSE", "false", "False"]);

function doubleToInt(d: number): bigint {
  if (!Number.isFinite(d) || d <= -9223372036854775808 || d >= 9223372036854775807) throw intOverflow();
  return BigInt(Math.trunc(d));
}
function doubleToUint(d: number): CelUint {
  if (!Number.isFinite(d) || d < 0 || d >= 18446744073709551616) throw uintOverflow();
  return new CelUint(BigInt(Math.trunc(d)));
}

// ---------- time accessors ----------
function timeFn(
  name: string,
  tsId: string,
  tzId: string,
  get: (c: CivilTime) => number,
  durId?: string,
  durGet?: (nanos: bigint) => bigint,
): FunctionDecl {
  const overloads = [
    memberOverload(tsId, [TimestampType], IntType, (a) => BigInt(get(civilTime(a[0] as CelTimestamp)))),
    memberOverload(tzId, [TimestampType, StringType], IntType, (a) => BigInt(get(civilTime(a[0] as CelTimestamp, str(a[1]))))),
  ];
  if (durId && durGet) overloads.push(memberOverload(durId, [DurationType], IntType, (a) => durGet(dur(a[0]))));
  return fn(name, ...overloads);
}

function inAggregate(args: readonly CelValue[]): boolean {
  const [v, agg] = args;
  if (Array.isArray(agg)) {
    for (const e of agg) if (celEquals(e, v!)) return true;
    return false;
  }
  if (agg instanceof CelMap) return agg.has(v!);
  throw noSuchOverload();
}

/** `list[index]`: int, uint, or a double with an integral value. */
export function indexList(list: readonly CelValue[], index: CelValue): CelValue {
  let i: number;
  if (typeof index === "bigint") i = index < 0n || index >= BigInt(list.length) ? -1 : Number(index);
  else if (index instanceof CelUint) i = index.value >= BigInt(list.length) ? -1 : Number(index.value);
  else if (typeof index === "number") {
    if (!Number.isInteger(index)) throw new CelEvalError(`unsupported index value ${formatDouble(index)} in list`);
    i = index < 0 || index >= list.length ? -1 : index;
  } else throw new CelEvalError(`unsupported index type '${typeOfValueName(index)}' in list`);
  if (i < 0) throw new CelEvalError(`index out of bounds: ${indexText(index)}`);
  return list[i]!;
}
function indexText(index: CelValue): string {
  if (index instanceof CelUint) return String(index.value);
  if (typeof index === "number") return formatDouble(index);
  return String(index);
}
function typeOfValueName(v: CelValue): string {
  return typeNameOf(v);
}

/** `map[key]`: the value, or `no such key: <key>` (the key as Go's %v prints it). */
export function indexMap(map: CelMap, key: CelValue): CelValue {
  const v = map.get(key);
  if (v === undefined) {
    if (!(typeof key === "string" || typeof key === "bigint" || typeof key === "boolean" || typeof key === "number" || key instanceof CelUint))
      throw new CelEvalError(`unsupported key type: ${typeOfValueName(key)}`);
    throw new CelEvalError(`no such key: ${indexText(key)}`);
  }
  return v;
}

function size(args: readonly CelValue[]): bigint {
  const n = sizeOf(args[0]!);
  if (n === undefined) throw noSuchOverload();
  return BigInt(n);
}

export const standardFunctions: readonly FunctionDecl[] = [
  fn("_?_:_", overload("conditional", [BoolType, A, A], A, undefined, TA)),
  fn("_&&_", overload("logical_and", [BoolType, BoolType], BoolType)),
  fn("_||_", overload("logical_or", [BoolType, BoolType], BoolType)),
  fn("!_", overload("logical_not", [BoolType], BoolType, (a) => !a[0])),
  fn("@not_strictly_false", overload("not_strictly_false", [BoolType], BoolType, (a) => a[0] !== false)),
  fn("_==_", overload("equals", [A, A], BoolType, (a) => celEquals(a[0]!, a[1]!), TA)),
  fn("_!=_", overload("not_equals", [A, A], BoolType, (a) => !celEquals(a[0]!, a[1]!), TA)),
  fn(
    "_+_",
    overload("add_bytes", [BytesType, BytesType], BytesType, (a) => concatBytes(bytes(a[0]!), bytes(a[1]!))),
    overload("add_double", [DoubleType, DoubleType], DoubleType, (a) => dbl(a[0]!) + dbl(a[1]!)),
    overload("add_duration_duration", [DurationType, DurationType], DurationType, (a) => checkedDuration(dur(a[0]!) + dur(a[1]!))),
    overload("add_duration_timestamp", [DurationType, TimestampType], TimestampType, (a) => checkedTimestamp(dur(a[0]!) + ts(a[1]!))),
    overload("add_timestamp_duration", [TimestampType, DurationType], TimestampType, (a) => checkedTimestamp(ts(a[0]!) + dur(a[1]!))),
    overload("add_int64", [IntType, IntType], IntType, (a) => checkInt(int(a[0]!) + int(a[1]!))),
    overload("add_list", [listA, listA], listA, (a) => [...(a[0] as CelValue[]), ...(a[1] as CelValue[])], TA),
    overload("add_string", [StringType, StringType], StringType, (a) => str(a[0]!) + str(a[1]!)),
    overload("add_uint64", [UintType, UintType], UintType, (a) => checkUint(uint(a[0]!) + uint(a[1]!))),
  ),
  fn(
    "_/_",
    overload("divide_double", [DoubleType, DoubleType], DoubleType, (a) => dbl(a[0]!) / dbl(a[1]!)),
    overload("divide_int64", [IntType, IntType], IntType, (a) => {
      if (int(a[1]!) === 0n) throw new CelEvalError("division by zero");
      return checkInt(int(a[0]!) / int(a[1]!));
    }),
    overload("divide_uint64", [UintType, UintType], UintType, (a) => {
      if (uint(a[1]!) === 0n) throw new CelEvalError("division by zero");
      return new CelUint(uint(a[0]!) / uint(a[1]!));
    }),
  ),
  fn(
    "_%_",
    overload("modulo_int64", [IntType, IntType], IntType, (a) => {
      if (int(a[1]!) === 0n) throw new CelEvalError("modulus by zero");
      if (int(a[1]!) === -1n && int(a[0]!) === minInt64) throw intOverflow();
      return int(a[0]!) % int(a[1]!);
    }),
    overload("modulo_uint64", [UintType, UintType], UintType, (a) => {
      if (uint(a[1]!) === 0n) throw new CelEvalError("modulus by zero");
      return new CelUint(uint(a[0]!) % uint(a[1]!));
    }),
  ),
  fn(
    "_*_",
    overload("multiply_double", [DoubleType, DoubleType], DoubleType, (a) => dbl(a[0]!) * dbl(a[1]!)),
    overload("multiply_int64", [IntType, IntType], IntType, (a) => checkInt(int(a[0]!) * int(a[1]!))),
    overload("multiply_uint64", [UintType, UintType], UintType, (a) => checkUint(uint(a[0]!) * uint(a[1]!))),
  ),
  fn(
    "-_",
    overload("negate_double", [DoubleType], DoubleType, (a) => -dbl(a[0]!)),
    overload("negate_int64", [IntType], IntType, (a) => checkInt(-int(a[0]!))),
  ),
  fn(
    "_-_",
    overload("subtract_double", [DoubleType, DoubleType], DoubleType, (a) => dbl(a[0]!) - dbl(a[1]!)),
    overload("subtract_duration_duration", [DurationType, DurationType], DurationType, (a) => checkedDuration(dur(a[0]!) - dur(a[1]!))),
    overload("subtract_int64", [IntType, IntType], IntType, (a) => checkInt(int(a[0]!) - int(a[1]!))),
    overload("subtract_timestamp_duration", [TimestampType, DurationType], TimestampType, (a) => checkedTimestamp(ts(a[0]!) - dur(a[1]!))),
    overload("subtract_timestamp_timestamp", [TimestampType, TimestampType], DurationType, (a) => checkedDuration(ts(a[0]!) - ts(a[1]!))),
    overload("subtract_uint64", [UintType, UintType], UintType, (a) => checkUint(uint(a[0]!) - uint(a[1]!))),
  ),
  comparison("_<_", "less"),
  comparison("_<=_", "less_equals"),
  comparison("_>_", "greater"),
  comparison("_>=_", "greater_equals"),
  fn(
    "_[_]",
    overload("index_list", [listA, IntType], A, (a) => indexList(a[0] as CelValue[], a[1]!), TA),
    overload("index_map", [mapAB, A], B, (a) => indexMap(a[0] as CelMap, a[1]!), AB),
  ),
  fn(
    "@in",
    overload("in_list", [A, listA], BoolType, inAggregate, TA),
    overload("in_map", [A, mapAB], BoolType, inAggregate, AB),
  ),
  fn(
    "size",
    overload("size_bytes", [BytesType], IntType, size),
    memberOverload("bytes_size", [BytesType], IntType, size),
    overload("size_list", [listA], IntType, size, TA),
    memberOverload("list_size", [listA], IntType, size, TA),
    overload("size_map", [mapAB], IntType, size, AB),
    memberOverload("map_size", [mapAB], IntType, size, AB),
    overload("size_string", [StringType], IntType, size),
    memberOverload("string_size", [StringType], IntType, size),
  ),
  fn("type", overload("type", [A], typeOf(A), (a) => typeOfValue(a[0]!), TA)),
  fn(
    "bool",
    overload("bool_to_bool", [BoolType], BoolType, (a) => a[0]!),
    overload("string_to_bool", [StringType], BoolType, (a) => {
      const s = str(a[0]!);
      if (trueStrings.has(s)) return true;
      if (falseStrings.has(s)) return false;
      throw convErr("string", "bool");
    }),
  ),
  fn(
    "bytes",
    overload("bytes_to_bytes", [BytesType], BytesType, (a) => a[0]!),
    overload("string_to_bytes", [StringType], BytesType, (a) => utf8Encoder.encode(str(a[0]!))),
  ),
  fn(
    "double",
    overload("double_to_double", [DoubleType], DoubleType, (a) => a[0]!),
    overload("int64_to_double", [IntType], DoubleType, (a) => Number(int(a[0]!))),
    overload("string_to_double", [StringType], DoubleType, (a) => stringToDouble(str(a[0]!))),
    overload("uint64_to_double", [UintType], DoubleType, (a) => Number(uint(a[0]!))),
  ),
  fn(
    "duration",
    overload("duration_to_duration", [DurationType], DurationType, (a) => a[0]!),
    overload("string_to_duration", [StringType], DurationType, (a) => {
      const d = parseDuration(str(a[0]!));
      if (!d) throw convErr("string", "google.protobuf.Duration");
      return d;
    }),
  ),
  fn("dyn", overload("to_dyn", [A], DynType, (a) => a[0]!, TA)),
  fn(
    "int",
    overload("int64_to_int64", [IntType], IntType, (a) => a[0]!),
    overload("double_to_int64", [DoubleType], IntType, (a) => doubleToInt(dbl(a[0]!))),
    overload("duration_to_int64", [DurationType], IntType, (a) => dur(a[0]!)),
    overload("string_to_int64", [StringType], IntType, (a) => stringToInt(str(a[0]!))),
    overload("timestamp_to_int64", [TimestampType], IntType, (a) => floorDiv(ts(a[0]!), NANOS)),
    overload("uint64_to_int64", [UintType], IntType, (a) => checkInt(uint(a[0]!))),
  ),
  fn(
    "string",
    overload("string_to_string", [StringType], StringType, (a) => a[0]!),
    overload("bool_to_string", [BoolType], StringType, (a) => String(a[0])),
    overload("bytes_to_string", [BytesType], StringType, (a) => {
      try {
        return utf8Decoder.decode(bytes(a[0]!));
      } catch {
        throw new CelEvalError("invalid UTF-8 in bytes, cannot convert to string");
      }
    }),
    overload("double_to_string", [DoubleType], StringType, (a) => formatDouble(dbl(a[0]!))),
    overload("duration_to_string", [DurationType], StringType, (a) => formatDuration(a[0] as CelDuration)),
    overload("int64_to_string", [IntType], StringType, (a) => String(a[0])),
    overload("timestamp_to_string", [TimestampType], StringType, (a) => formatTimestamp(a[0] as CelTimestamp)),
    overload("uint64_to_string", [UintType], StringType, (a) => String(uint(a[0]!))),
  ),
  fn(
    "timestamp",
    overload("timestamp_to_timestamp", [TimestampType], TimestampType, (a) => a[0]!),
    overload("int64_to_timestamp", [IntType], TimestampType, (a) => {
      const s = int(a[0]!);
      if (s < minUnixSeconds || s > maxUnixSeconds) throw new CelEvalError("timestamp overflow");
      return new CelTimestamp(s * NANOS);
    }),
    overload("string_to_timestamp", [StringType], TimestampType, (a) => {
      const t = parseTimestamp(str(a[0]!));
      if (!t) throw convErr("string", "google.protobuf.Timestamp");
      return t;
    }),
  ),
  fn(
    "uint",
    overload("uint64_to_uint64", [UintType], UintType, (a) => a[0]!),
    overload("double_to_uint64", [DoubleType], UintType, (a) => doubleToUint(dbl(a[0]!))),
    overload("int64_to_uint64", [IntType], UintType, (a) => checkUint(int(a[0]!))),
    overload("string_to_uint64", [StringType], UintType, (a) => stringToUint(str(a[0]!))),
  ),
  fn("contains", memberOverload("contains_string", [StringType, StringType], BoolType, (a) => str(a[0]!).includes(str(a[1]!)))),
  fn("endsWith", memberOverload("ends_with_string", [StringType, StringType], BoolType, (a) => str(a[0]!).endsWith(str(a[1]!)))),
  fn("startsWith", memberOverload("starts_with_string", [StringType, StringType], BoolType, (a) => str(a[0]!).startsWith(str(a[1]!)))),
  fn(
    "matches",
    overload("matches", [StringType, StringType], BoolType, (a) => compileRegex(str(a[1]!)).test(str(a[0]!))),
    memberOverload("matches_string", [StringType, StringType], BoolType, (a) => compileRegex(str(a[1]!)).test(str(a[0]!))),
  ),
  timeFn("getFullYear", "timestamp_to_year", "timestamp_to_year_with_tz", (c) => c.year),
  timeFn("getMonth", "timestamp_to_month", "timestamp_to_month_with_tz", (c) => c.month - 1),
  timeFn("getDayOfYear", "timestamp_to_day_of_year", "timestamp_to_day_of_year_with_tz", (c) => c.dayOfYear),
  timeFn("getDayOfMonth", "timestamp_to_day_of_month", "timestamp_to_day_of_month_with_tz", (c) => c.day - 1),
  timeFn("getDate", "timestamp_to_day_of_month_1_based", "timestamp_to_day_of_month_1_based_with_tz", (c) => c.day),
  timeFn("getDayOfWeek", "timestamp_to_day_of_week", "timestamp_to_day_of_week_with_tz", (c) => c.dayOfWeek),
  timeFn("getHours", "timestamp_to_hours", "timestamp_to_hours_with_tz", (c) => c.hours, "duration_to_hours", (n) => n / (3600n * NANOS)),
  timeFn("getMinutes", "timestamp_to_minutes", "timestamp_to_minutes_with_tz", (c) => c.minutes, "duration_to_minutes", (n) => n / (60n * NANOS)),
  timeFn("getSeconds", "timestamp_to_seconds", "timestamp_to_seconds_tz", (c) => c.seconds, "duration_to_seconds", (n) => n / NANOS),
  timeFn("getMilliseconds", "timestamp_to_milliseconds", "timestamp_to_milliseconds_with_tz", (c) => c.millis, "duration_to_milliseconds", (n) => (n / 1_000_000n) % 1000n),
];

/** The type names every program sees (`int`, `list`, `google.protobuf.Timestamp`, …) as type values. */
export const standardConstants: CelLibrary["constants"] = [
  ["int", typeValues.int],
  ["uint", typeValues.uint],
  ["double", typeValues.double],
  ["bool", typeValues.bool],
  ["string", typeValues.string],
  ["bytes", typeValues.bytes],
  ["list", typeValues.list],
  ["map", typeValues.map],
  ["null_type", typeValues.null_type],
  ["type", typeValues.type],
  ["google.protobuf.Timestamp", typeValues.timestamp],
  ["google.protobuf.Duration", typeValues.duration],
].map(([name, value]) => ({
  name: name as string,
  type: typeOf((value as import("../value.js").CelTypeValue).type),
  value: value as import("../value.js").CelTypeValue,
}));

export const standardLibrary: CelLibrary = {
  name: "cel.lib.std",
  functions: standardFunctions,
  constants: standardConstants,
};

/** Functions whose dispatch failure cel-go reports as plain `no such overload` (its trait-based operators). */
export const plainNoSuchOverload: ReadonlySet<string> = new Set([
  "_+_", "_-_", "_*_", "_/_", "_%_", "-_", "!_", "_<_", "_<=_", "_>_", "_>=_", "_[_]", "@in", "size", "_==_", "_!=_",
]);
