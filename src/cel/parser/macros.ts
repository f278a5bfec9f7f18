// Macro expansion as cel-go does it at parse time (parser/macro.go, ext/comprehensions.go,
// ext/bindings.go): the same comprehension shapes, the same accumulator name `@result`, the same
// order of creating nodes (so ids match cel-go's), the same error texts. A macro matches on
// name, argument count and call style (global or receiver); an expander may decline (cel.bind
// on a target other than `cel`), and the call then stays an ordinary call.
import { accumulatorName, type Expr } from "../ast.js";
import type { CelValue } from "../value.js";

/** cel-go's older accumulator name, still refused as an iteration variable. */
export const legacyAccumulatorName = "__result__";

/** Node factory handed to expanders; every node it makes sits at the macro call's position. */
export interface MacroHelper {
  lit(value: CelValue): Expr;
  ident(name: string): Expr;
  accu(): Expr;
  call(fn: string, ...args: Expr[]): Expr;
  /** `target.fn(args)` */
  member(fn: string, target: Expr, ...args: Expr[]): Expr;
  /** A copy of `e` with fresh ids (each copied node keeps the original's position). */
  copy(e: Expr): Expr;
  list(...elements: Expr[]): Expr;
  map(): Expr;
  presence(operand: Expr, field: string): Expr;
  comprehension(
    iterRange: Expr,
    iterVar: string,
    iterVar2: string | undefined,
    accuVar: string,
    accuInit: Expr,
    loopCondition: Expr,
    loopStep: Expr,
    result: Expr,
  ): Expr;
}

export type MacroResult = Expr | { readonly errorAt: number; readonly message: string } | undefined;

export type MacroExpander = (h: MacroHelper, target: Expr | undefined, args: readonly Expr[]) => MacroResult;

function err(at: Expr, message: string): MacroResult {
  return { errorAt: at.id, message };
}

function identName(e: Expr): string | undefined {
  return e.kind === "ident" ? e.name : undefined;
}

function isAccu(name: string): boolean {
  return name === accumulatorName || name === legacyAccumulatorName;
}

type Quantifier = "all" | "exists" | "existsOne";

/** The loop parts of all / exists / exists_one, created in cel-go's order. */
function quantifierParts(h: MacroHelper, kind: Quantifier, predicate: Expr): [Expr, Expr, Expr, Expr] {
  switch (kind) {
    case "all": {
      const init = h.lit(true);
      const cond = h.call("@not_strictly_false", h.accu());
      const step = h.call("_&&_", h.accu(), predicate);
      return [init, cond, step, h.accu()];
    }
    case "exists": {
      const init = h.lit(false);
      const cond = h.call("@not_strictly_false", h.call("!_", h.accu()));
      const step = h.call("_||_", h.accu(), predicate);
      return [init, cond, step, h.accu()];
    }
    case "existsOne": {
      const init = h.lit(0n);
      const cond = h.lit(true);
      const step = h.call("_?_:_", predicate, h.call("_+_", h.accu(), h.lit(1n)), h.accu());
      const result = h.call("_==_", h.accu(), h.lit(1n));
      return [init, cond, step, result];
    }
  }
}

function quantifier(kind: Quantifier): MacroExpander {
  return (h, target, args) => {
    const v = identName(args[0]!);
    if (v === undefined) return err(args[0]!, "argument must be a simple name");
    if (isAccu(v)) return err(args[0]!, "iteration variable overwrites accumulator variable");
    const [init, cond, step, result] = quantifierParts(h, kind, args[1]!);
    return h.comprehension(target!, v, undefined, accumulatorName, init, cond, step, result);
  };
}

const makeMap: MacroExpander = (h, target, args) => {
  const v = identName(args[0]!);
  if (v === undefined) return err(args[0]!, "argument is not an identifier");
  if (isAccu(v)) return err(args[0]!, "iteration variable overwrites accumulator variable");
  const filter = args.length === 3 ? args[1] : undefined;
  const fn = args.length === 3 ? args[2]! : args[1]!;
  const init = h.list();
  const cond = h.lit(true);
  let step = h.call("_+_", h.accu(), h.list(fn));
  if (filter) step = h.call("_?_:_", filter, step, h.accu());
  return h.comprehension(target!, v, undefined, accumulatorName, init, cond, step, h.accu());
};

const makeFilter: MacroExpander = (h, target, args) => {
  const v = identName(args[0]!);
  if (v === undefined) return err(args[0]!, "argument is not an identifier");
  if (isAccu(v)) return err(args[0]!, "iteration variable overwrites accumulator variable");
  const init = h.list();
  const cond = h.lit(true);
  let step = h.call("_+_", h.accu(), h.list(args[0]!));
  step = h.call("_?_:_", args[1]!, step, h.accu());
  return h.comprehension(target!, v, undefined, accumulatorName, init, cond, step, h.accu());
};

const makeHas: MacroExpander = (h, _target, args) => {
  const a = args[0]!;
  if (a.kind === "select") return h.presence(a.operand, a.field);
  return err(a, "invalid argument to has() macro");
};

function iterVars(args: readonly Expr[]): [string, string] | { errorAt: number; message: string } {
  const v1 = identName(args[0]!);
  if (v1 === undefined) return { errorAt: args[0]!.id, message: "argument must be a simple name" };
  const v2 = identName(args[1]!);
  if (v2 === undefined) return { errorAt: args[1]!.id, message: "argument must be a simple name" };
  if (v1 === v2) return { errorAt: args[1]!.id, message: `duplicate variable name: ${v1}` };
  if (isAccu(v1)) return { errorAt: args[0]!.id, message: "iteration variable overwrites accumulator variable" };
  if (isAccu(v2)) return { errorAt: args[1]!.id, message: "iteration variable overwrites accumulator variable" };
  return [v1, v2];
}

function quantifier2(kind: Quantifier): MacroExpander {
  return (h, target, args) => {
    const vars = iterVars(args);
    if (!Array.isArray(vars)) return vars;
    const [init, cond, step, result] = quantifierParts(h, kind, args[2]!);
    return h.comprehension(target!, vars[0], vars[1], accumulatorName, init, cond, step, result);
  };
}

const transformList: MacroExpander = (h, target, args) => {
  const vars = iterVars(args);
  if (!Array.isArray(vars)) return vars;
  const filter = args.length === 4 ? args[2] : undefined;
  const transform = args.length === 4 ? args[3]! : args[2]!;
  let step = h.call("_+_", h.accu(), h.list(transform));
  if (filter) step = h.call("_?_:_", filter, step, h.accu());
  const init = h.list();
  const cond = h.lit(true);
  return h.comprehension(target!, vars[0], vars[1], accumulatorName, init, cond, step, h.accu());
};

function transformMapLike(entry: boolean): MacroExpander {
  return (h, target, args) => {
    const vars = iterVars(args);
    if (!Array.isArray(vars)) return vars;
    const filter = args.length === 4 ? args[2] : undefined;
    const transform = args.length === 4 ? args[3]! : args[2]!;
    let step = entry
      ? h.call("cel.@mapInsert", h.accu(), transform)
      : h.call("cel.@mapInsert", h.accu(), h.ident(vars[0]), transform);
    if (filter) step = h.call("_?_:_", filter, step, h.accu());
    const init = h.map();
    const cond = h.lit(true);
    return h.comprehension(target!, vars[0], vars[1], accumulatorName, init, cond, step, h.accu());
  };
}

const celBind: MacroExpander = (h, target, args) => {
  if (!target || identName(target) !== "cel") return undefined;
  const name = identName(args[0]!);
  if (name === undefined) return err(args[0]!, "cel.bind() variable names must be simple identifiers");
  const range = h.list();
  const cond = h.lit(false);
  const step = h.ident(name);
  return h.comprehension(range, "#unused", undefined, name, args[1]!, cond, step, args[2]!);
};

/**
 * `t.optMap(x, e)` → `t.hasValue() ? optional.of(cel.bind(x, t.value(), e)) : optional.none()`;
 * `t.optFlatMap(x, e)` the same without `optional.of` (cel-go's optional library).
 */
function optMapLike(name: "optMap" | "optFlatMap"): MacroExpander {
  return (h, target, args) => {
    const v = identName(args[0]!);
    if (v === undefined) return err(args[0]!, `${name}() variable name must be a simple identifier`);
    const has = h.member("hasValue", target!);
    const range = h.list();
    const value = h.member("value", h.copy(target!));
    const bind = h.comprehension(range, "#unused", undefined, v, value, h.lit(false), h.ident(v), args[1]!);
    const present = name === "optMap" ? h.call("optional.of", bind) : bind;
    return h.call("_?_:_", has, present, h.call("optional.none"));
  };
}

const sortByInput = "@__sortBy_input__";

/**
 * ext lists (version 2+) `t.sortBy(e, k)` → a cel.bind of `@__sortBy_input__` to `t` whose result
 * is `@__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, k))`.
 */
const sortBy: MacroExpander = (h, target, args) => {
  const input = h.ident(sortByInput);
  const t = target!;
  if (t.kind !== "list" && t.kind !== "select" && t.kind !== "ident" && t.kind !== "comprehension" && t.kind !== "call") {
    return err(t, "sortBy can only be applied to a list, identifier, comprehension, call or select expression");
  }
  const keys = makeMap(h, h.copy(input), args);
  if (keys === undefined || "errorAt" in keys) return keys;
  const sorted = h.member("@sortByAssociatedKeys", h.copy(input), keys);
  const range = h.list();
  return h.comprehension(range, "#unused", undefined, sortByInput, t, h.lit(false), input, sorted);
};

/** Key: `name:argCount:receiverStyle`, as cel-go's macro keys. */
export function macroKey(name: string, argCount: number, receiver: boolean): string {
  return `${name}:${argCount}:${receiver}`;
}

/** cel-go's standard macros (parser.AllMacros): has, all, exists, exists_one, existsOne, map, filter. */
export const standardMacros: ReadonlyMap<string, MacroExpander> = new Map<string, MacroExpander>([
  [macroKey("has", 1, false), makeHas],
  [macroKey("all", 2, true), quantifier("all")],
  [macroKey("exists", 2, true), quantifier("exists")],
  [macroKey("exists_one", 2, true), quantifier("existsOne")],
  [macroKey("existsOne", 2, true), quantifier("existsOne")],
  [macroKey("map", 2, true), makeMap],
  [macroKey("map", 3, true), makeMap],
  [macroKey("filter", 2, true), makeFilter],
]);

/**
 * The macros of Kubernetes' CEL environment: cel-go's standard macros (has, all, exists,
 * exists_one, existsOne, map, filter), the two-variable comprehensions (ext.TwoVarComprehensions),
 * cel.bind (ext.Bindings), optMap / optFlatMap (cel.OptionalTypes) and sortBy (ext.Lists v3).
 */
export const defaultMacros: ReadonlyMap<string, MacroExpander> = new Map<string, MacroExpander>([
  ...standardMacros,
  [macroKey("all", 3, true), quantifier2("all")],
  [macroKey("exists", 3, true), quantifier2("exists")],
  [macroKey("existsOne", 3, true), quantifier2("existsOne")],
  [macroKey("exists_one", 3, true), quantifier2("existsOne")],
  [macroKey("transformList", 3, true), transformList],
  [macroKey("transformList", 4, true), transformList],
  [macroKey("transformMap", 3, true), transformMapLike(false)],
  [macroKey("transformMap", 4, true), transformMapLike(false)],
  [macroKey("transformMapEntry", 3, true), transformMapLike(true)],
  [macroKey("transformMapEntry", 4, true), transformMapLike(true)],
  [macroKey("bind", 3, true), celBind],
  [macroKey("optMap", 2, true), optMapLike("optMap")],
  [macroKey("optFlatMap", 2, true), optMapLike("optFlatMap")],
  [macroKey("sortBy", 2, true), sortBy],
]);
