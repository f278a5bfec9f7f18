// A tiny AST builder for tests (no parser needed): nodes get fresh ids; macros expand as cel-go's.
import { accumulatorName, type CallExpr, type Expr, type ParsedExpr } from "../ast.js";
import { Source } from "../source.js";
import type { CelValue } from "../value.js";

let nextId = 1;
const id = () => nextId++;

export const lit = (value: CelValue): Expr => ({ id: id(), kind: "const", value });
export const ident = (name: string): Expr => ({ id: id(), kind: "ident", name });
export const sel = (operand: Expr, field: string): Expr => ({ id: id(), kind: "select", operand, field, testOnly: false });
export const has = (operand: Expr, field: string): Expr => ({ id: id(), kind: "select", operand, field, testOnly: true });
export const call = (fn: string, ...args: Expr[]): CallExpr => ({ id: id(), kind: "call", fn, args });
export const mcall = (target: Expr, fn: string, ...args: Expr[]): CallExpr => ({ id: id(), kind: "call", fn, target, args });
export const list = (...elements: Expr[]): Expr => ({ id: id(), kind: "list", elements, optionalIndices: [] });
export const optList = (optionalIndices: number[], ...elements: Expr[]): Expr => ({ id: id(), kind: "list", elements, optionalIndices });
export const map = (...entries: [Expr, Expr, boolean?][]): Expr => ({
  id: id(),
  kind: "map",
  entries: entries.map(([key, value, optional]) => ({ id: id(), key, value, optional: optional ?? false })),
});

function fold(range: Expr, iterVar: string, init: Expr, cond: Expr, step: Expr, result: Expr, iterVar2?: string): Expr {
  return {
    id: id(),
    kind: "comprehension",
    iterVar,
    iterVar2,
    iterRange: range,
    accuVar: accumulatorName,
    accuInit: init,
    loopCondition: cond,
    loopStep: step,
    result,
  };
}
const accu = () => ident(accumulatorName);
export const all = (range: Expr, v: string, pred: Expr, v2?: string) =>
  fold(range, v, lit(true), call("@not_strictly_false", accu()), call("_&&_", accu(), pred), accu(), v2);
export const exists = (range: Expr, v: string, pred: Expr, v2?: string) =>
  fold(range, v, lit(false), call("@not_strictly_false", call("!_", accu())), call("_||_", accu(), pred), accu(), v2);
export const mapMacro = (range: Expr, v: string, fn: Expr) =>
  fold(range, v, list(), lit(true), call("_+_", accu(), list(fn)), accu());
export const filter = (range: Expr, v: string, pred: Expr) =>
  fold(range, v, list(), lit(true), call("_?_:_", pred, call("_+_", accu(), list(ident(v))), accu()), accu());
export const transformMap = (range: Expr, k: string, v: string, fn: Expr) =>
  fold(range, k, map(), lit(true), call("cel.@mapInsert", accu(), ident(k), fn), accu(), v);

export function parsed(expr: Expr, text = "<built>"): ParsedExpr {
  return { expr, source: new Source(text), positions: new Map(), macroCalls: new Map(), nextId };
}
