// cel-go's optional types library (cel.OptionalTypes): optional.of/ofNonZeroValue/none, hasValue,
// value, or, orValue, optional field selection `a.?f` and indexing `a[?k]`, indexing into an
// optional list or map, and list first/last and optional.unwrap / unwrapOpt. optMap and
// optFlatMap are macros (the parser expands them).
import { memberOverload, overload, type CelLibrary, type FunctionDecl, type OverloadDecl } from "../library.js";
import { BoolType, DynType, IntType, StringType, listOf, mapOf, optionalOf, typeParam } from "../types.js";
import { CelDuration, CelEvalError, CelMap, CelOptional, CelTimestamp, CelUint, type CelValue } from "../value.js";
import { indexList, indexMap } from "./standard.js";
import { sizeOf, typeValues } from "./values.js";

const V = typeParam("V");
const K = typeParam("K");
const optV = optionalOf(V);
const listV = listOf(V);
const mapKV = mapOf(K, V);
const TV = { typeParams: ["V"] } as const;
const TKV = { typeParams: ["K", "V"] } as const;

function fn(name: string, ...overloads: OverloadDecl[]): FunctionDecl {
  return { name, overloads };
}

/** Whether a value is its type's zero value (optional.ofNonZeroValue). */
export function isZeroValue(v: CelValue): boolean {
  if (v === null || v === false || v === 0n || v === 0 || v === "") return true;
  if (v instanceof CelUint) return v.value === 0n;
  if (v instanceof CelTimestamp || v instanceof CelDuration) return v.nanos === 0n;
  if (v instanceof CelOptional) return !v.hasValue;
  const n = sizeOf(v);
  return n === 0;
}

/** `container[?key]` on a list or a map: optional.none() when absent. */
export function optIndex(container: CelValue, key: CelValue): CelOptional {
  if (Array.isArray(container)) {
    try {
      return CelOptional.of(indexList(container, key));
    } catch (e) {
      if (e instanceof CelEvalError && e.message.startsWith("index out of bounds")) return CelOptional.none;
      throw e;
    }
  }
  if (container instanceof CelMap) {
    const v = container.get(key);
    return v === undefined ? CelOptional.none : CelOptional.of(v);
  }
  throw new CelEvalError("no such overload");
}

function optionalIndex(opt: CelValue, key: CelValue, strict: boolean): CelOptional {
  const o = opt as CelOptional;
  if (!o.hasValue) return CelOptional.none;
  if (strict) {
    const c = o.value;
    return CelOptional.of(Array.isArray(c) ? indexList(c, key) : indexMap(c as CelMap, key));
  }
  return optIndex(o.value, key);
}

export const optionalFunctions: readonly FunctionDecl[] = [
  fn("optional.of", overload("optional_of", [V], optV, (a) => CelOptional.of(a[0]!), TV)),
  fn(
    "optional.ofNonZeroValue",
    overload("optional_ofNonZeroValue", [V], optV, (a) => (isZeroValue(a[0]!) ? CelOptional.none : CelOptional.of(a[0]!)), TV),
  ),
  fn("optional.none", overload("optional_none", [], optV, () => CelOptional.none, TV)),
  fn(
    "value",
    memberOverload("optional_value", [optV], V, (a) => {
      const o = a[0] as CelOptional;
      if (!o.hasValue) throw new CelEvalError("optional.none() dereference");
      return o.value;
    }, TV),
  ),
  fn("hasValue", memberOverload("optional_hasValue", [optV], BoolType, (a) => (a[0] as CelOptional).hasValue, TV)),
  // `or` and `orValue` short-circuit: the interpreter evaluates the argument only when needed.
  fn("or", memberOverload("optional_or_optional", [optV, optV], optV, (a) => ((a[0] as CelOptional).hasValue ? a[0]! : a[1]!), TV)),
  fn(
    "orValue",
    memberOverload("optional_orValue_value", [optV, V], V, (a) => {
      const o = a[0] as CelOptional;
      return o.hasValue ? o.value : a[1]!;
    }, TV),
  ),
  // `_?._` and `_[?_]` are evaluated by the interpreter (field presence); declared for the checker.
  fn("_?._", overload("select_optional_field", [DynType, StringType], optV, undefined, TV)),
  fn(
    "_[?_]",
    overload("list_optindex_optional_int", [listV, IntType], optV, (a) => optIndex(a[0]!, a[1]!), TV),
    overload("optional_list_optindex_optional_int", [optionalOf(listV), IntType], optV, (a) => optionalIndex(a[0]!, a[1]!, false), TV),
    overload("map_optindex_optional_value", [mapKV, K], optV, (a) => optIndex(a[0]!, a[1]!), TKV),
    overload("optional_map_optindex_optional_value", [optionalOf(mapKV), K], optV, (a) => optionalIndex(a[0]!, a[1]!, false), TKV),
  ),
  fn(
    "_[_]",
    overload("optional_list_index_int", [optionalOf(listV), IntType], optV, (a) => optionalIndex(a[0]!, a[1]!, false), TV),
    overload("optional_map_index_value", [optionalOf(mapKV), K], optV, (a) => optionalIndex(a[0]!, a[1]!, false), TKV),
  ),
  fn(
    "last",
    memberOverload("list_last", [listV], optV, (a) => {
      const l = a[0] as CelValue[];
      return l.length ? CelOptional.of(l[l.length - 1]!) : CelOptional.none;
    }, TV),
  ),
  fn(
    "first",
    memberOverload("list_first", [listV], optV, (a) => {
      const l = a[0] as CelValue[];
      return l.length ? CelOptional.of(l[0]!) : CelOptional.none;
    }, TV),
  ),
  fn("optional.unwrap", overload("optional_unwrap", [listOf(optV)], listV, (a) => unwrap(a[0]!), TV)),
  fn("unwrapOpt", memberOverload("optional_unwrapOpt", [listOf(optV)], listV, (a) => unwrap(a[0]!), TV)),
];

function unwrap(list: CelValue): CelValue[] {
  const out: CelValue[] = [];
  for (const o of list as CelValue[]) {
    if (!(o instanceof CelOptional)) throw new CelEvalError("no such overload");
    if (o.hasValue) out.push(o.value);
  }
  return out;
}

export const optionalLibrary: CelLibrary = {
  name: "cel.lib.optional",
  functions: optionalFunctions,
  constants: [{ name: "optional_type", type: { kind: "type", of: optionalOf(DynType) }, value: typeValues.optional_type }],
};
