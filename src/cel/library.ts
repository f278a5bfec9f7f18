// What a CEL library contributes: functions (each with typed overloads, an implementation and
// optionally its cost), variables and constants. The standard library and every Kubernetes
// library (lists, regex, URLs, quantity, IP/CIDR, format, sets, semver, authorizer, …) are
// declared this way; the checker reads the types, the interpreter calls `impl`, the cost
// estimator and the runtime tracker read `cost`.
import type { CelType } from "./types.js";
import type { CelValue } from "./value.js";

/** A range [min, max]; cel-go's CostEstimate / SizeEstimate (max saturates at Number.MAX_SAFE_INTEGER). */
export interface Estimate {
  readonly min: number;
  readonly max: number;
}

/** What the estimator knows of one argument (receiver first for member calls). */
export interface ArgEstimate {
  readonly type: CelType;
  /** Size bounds: characters of a string, bytes, items of a list, entries of a map. */
  readonly size: Estimate;
  /** The argument's value when it is a constant in the expression (a literal regex, say). */
  readonly constant?: CelValue;
}

/** An overload's estimated cost beyond the call itself, and the size of its result when that matters. */
export interface CallEstimate {
  readonly cost: Estimate;
  readonly resultSize?: Estimate;
}

export interface OverloadCost {
  /** Compile-time estimate from the arguments' size bounds (cel-go EstimateCallCost). */
  estimate?(args: readonly ArgEstimate[]): CallEstimate;
  /** Runtime cost of one call from the actual arguments and result (cel-go CallCost). */
  actual?(args: readonly CelValue[], result: CelValue): number;
}

/** What an implementation may reach besides its arguments. */
export interface CallContext {
  /** Values the caller bound for this evaluation that are not CEL variables (the authorizer, …). */
  readonly services: Readonly<Record<string, unknown>>;
}

export interface OverloadDecl {
  /** Upstream's overload id (`add_int64`, `string_lower_ascii`, `quantity_add_int`, …). */
  readonly id: string;
  /** Written `x.f(a)`: `params[0]` is the receiver. */
  readonly member: boolean;
  readonly params: readonly CelType[];
  readonly result: CelType;
  /** Names of the type parameters `params`/`result` use (`list(T)` → `T`). */
  readonly typeParams?: readonly string[];
  /**
   * Runtime implementation, receiver first for members; arguments already match `params`
   * (the interpreter dispatches on runtime types). Throws CelEvalError with upstream's text.
   * Absent only for the operators the interpreter evaluates itself (`_&&_`, `_||_`, `_?_:_`, …).
   */
  readonly impl?: (args: readonly CelValue[], ctx: CallContext) => CelValue;
  /** Absent: the call costs 1 (estimate and runtime), as cel-go's default. */
  readonly cost?: OverloadCost;
  /**
   * false: the interpreter does not check the arguments' runtime types before calling `impl`
   * (cel-go's decls.DisableTypeGuards); `impl` then checks them itself, with its own message.
   */
  readonly typeGuards?: boolean;
}

export interface FunctionDecl {
  readonly name: string;
  readonly overloads: readonly OverloadDecl[];
}

export interface VariableDecl {
  readonly name: string;
  readonly type: CelType;
}

export interface CelLibrary {
  /** For messages and de-duplication: `cel.lib.std`, `kubernetes.quantity`, … */
  readonly name: string;
  readonly functions: readonly FunctionDecl[];
  /** Constants and type names a library makes visible (`int`, `optional.none` is a function, …). */
  readonly constants?: readonly { readonly name: string; readonly type: CelType; readonly value: CelValue }[];
}

/** Short form for declaring an overload. */
export function overload(
  id: string,
  params: readonly CelType[],
  result: CelType,
  impl?: OverloadDecl["impl"],
  extra: { member?: boolean; typeParams?: readonly string[]; cost?: OverloadCost; typeGuards?: boolean } = {},
): OverloadDecl {
  const decl: OverloadDecl = { id, member: extra.member ?? false, params, result, impl, typeParams: extra.typeParams, cost: extra.cost };
  return extra.typeGuards === false ? { ...decl, typeGuards: false } : decl;
}

export function memberOverload(
  id: string,
  params: readonly CelType[],
  result: CelType,
  impl?: OverloadDecl["impl"],
  extra: { typeParams?: readonly string[]; cost?: OverloadCost; typeGuards?: boolean } = {},
): OverloadDecl {
  return overload(id, params, result, impl, { ...extra, member: true });
}
