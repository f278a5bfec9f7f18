// The CEL abstract syntax tree, as the parser leaves it after macro expansion: the same node
// kinds as cel-go's (constant, identifier, select, call, list, map, struct, comprehension), each
// with a numeric id. Positions, types and resolved overloads live beside the tree, keyed by id,
// so one tree serves the checker, the cost estimator and the interpreter.
import type { CelValue } from "./value.js";

export type Expr =
  | ConstExpr
  | IdentExpr
  | SelectExpr
  | CallExpr
  | ListExpr
  | MapExpr
  | StructExpr
  | ComprehensionExpr;

/** null, bool, int (bigint), uint (CelUint), double (number), string, bytes (Uint8Array). */
export interface ConstExpr {
  readonly id: number;
  readonly kind: "const";
  readonly value: CelValue;
}

export interface IdentExpr {
  readonly id: number;
  readonly kind: "ident";
  readonly name: string;
}

/**
 * `operand.field`; `has(operand.field)` is a select with `testOnly`. The checker may replace
 * `field` with the schema's property name it escapes (`x__dash__y` → `x-y`), so the
 * interpreter always reads `field` as the key.
 */
export interface SelectExpr {
  readonly id: number;
  readonly kind: "select";
  readonly operand: Expr;
  field: string;
  readonly testOnly: boolean;
}

/**
 * A function or operator call. Operators use cel-go's names: `_+_`, `_-_`, `_*_`, `_/_`, `_%_`,
 * `-_`, `!_`, `_==_`, `_!=_`, `_<_`, `_<=_`, `_>_`, `_>=_`, `_&&_`, `_||_`, `_?_:_`, `_[_]`,
 * `@in`, `@not_strictly_false`; optional selection `a.?b` is `_?._(a, "b")` and `a[?b]` is
 * `_[?_](a, b)`. A member call `x.f(y)` has `target` x.
 */
export interface CallExpr {
  readonly id: number;
  readonly kind: "call";
  readonly fn: string;
  readonly target?: Expr;
  readonly args: readonly Expr[];
}

/** `[a, ?b]`: `optionalIndices` lists the positions written with `?`. */
export interface ListExpr {
  readonly id: number;
  readonly kind: "list";
  readonly elements: readonly Expr[];
  readonly optionalIndices: readonly number[];
}

export interface MapEntry {
  readonly id: number;
  readonly key: Expr;
  readonly value: Expr;
  /** `{?k: v}` */
  readonly optional: boolean;
}

export interface MapExpr {
  readonly id: number;
  readonly kind: "map";
  readonly entries: readonly MapEntry[];
}

export interface StructField {
  readonly id: number;
  readonly name: string;
  readonly value: Expr;
  readonly optional: boolean;
}

/** `Type{field: value}` — message construction (object types of MutatingAdmissionPolicy). */
export interface StructExpr {
  readonly id: number;
  readonly kind: "struct";
  readonly typeName: string;
  readonly fields: readonly StructField[];
}

/**
 * What every macro expands to (all, exists, exists_one, map, filter, the two-variable forms,
 * transformList/transformMap, cel.bind): iterate `iterRange` binding `iterVar` (and `iterVar2`:
 * index or key first, value second), fold into `accuVar` from `accuInit` with `loopStep` while
 * `loopCondition` holds, then evaluate `result`.
 */
export interface ComprehensionExpr {
  readonly id: number;
  readonly kind: "comprehension";
  readonly iterVar: string;
  readonly iterVar2?: string;
  readonly iterRange: Expr;
  readonly accuVar: string;
  readonly accuInit: Expr;
  readonly loopCondition: Expr;
  readonly loopStep: Expr;
  readonly result: Expr;
}

/** The name cel-go gives every macro's accumulator. */
export const accumulatorName = "@result";

/** A parsed expression: the tree, the source, each node's offset, and which macro made a node. */
export interface ParsedExpr {
  readonly expr: Expr;
  readonly source: import("./source.js").Source;
  /** Node id → offset (UTF-16 code units into the source text) where the node starts. */
  readonly positions: ReadonlyMap<number, number>;
  /** Comprehension/call node id → the macro call as written (for cost estimation and messages). */
  readonly macroCalls: ReadonlyMap<number, CallExpr>;
  /** The next unused id (the checker and later passes may add nodes). */
  readonly nextId: number;
}

/** A type-checked expression: the checker's findings beside the (possibly rewritten) tree. */
export interface CheckedExpr {
  readonly parsed: ParsedExpr;
  /** The tree to evaluate: the parsed one, select fields of escaped property names unescaped. */
  readonly expr: Expr;
  /** Every node id → its type. */
  readonly types: ReadonlyMap<number, import("./types.js").CelType>;
  /** Call node id → the overload ids the checker kept (one when the static types decide). */
  readonly overloads: ReadonlyMap<number, readonly string[]>;
  /**
   * Ident node id, or the id of a select chain read as one qualified name (`optional.none`,
   * `google.protobuf.Timestamp`), → the declared variable or constant it names.
   */
  readonly references: ReadonlyMap<number, string>;
  readonly resultType: import("./types.js").CelType;
  /**
   * Why creating the program must fail although the expression compiles (cel-go reports it from
   * `env.Program`): a constant regex of `find` / `findAll` that does not compile. plan() throws
   * it as CelProgramError.
   */
  readonly programError?: string;
}
