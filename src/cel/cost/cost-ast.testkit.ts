// Hand-built checked expressions for the cost tests (until the parser and checker land): a
// small builder that numbers nodes, records their types and overload ids, and expands macros
// the way cel-go's parser does.
import { accumulatorName, type CallExpr, type CheckedExpr, type Expr } from "../ast.js";
import { Source } from "../source.js";
import { BoolType, DynType, listOf, type CelType } from "../types.js";
import type { CelValue } from "../value.js";

export class AstBuilder {
  private nextId = 1;
  readonly types = new Map<number, CelType>();
  readonly overloads = new Map<number, readonly string[]>();
  readonly references = new Map<number, string>();

  private id(t: CelType | undefined): number {
    const id = this.nextId++;
    if (t) this.types.set(id, t);
    return id;
  }

  lit(value: CelValue, t?: CelType): Expr {
    return { id: this.id(t), kind: "const", value };
  }

  ident(name: string, t: CelType): Expr {
    return { id: this.id(t), kind: "ident", name };
  }

  select(operand: Expr, field: string, t: CelType): Expr {
    return { id: this.id(t), kind: "select", operand, field, testOnly: false };
  }

  has(operand: Expr, field: string): Expr {
    return { id: this.id(BoolType), kind: "select", operand, field, testOnly: true };
  }

  call(fn: string, overloads: readonly string[], args: readonly Expr[], t: CelType): CallExpr {
    const id = this.id(t);
    if (overloads.length) this.overloads.set(id, overloads);
    return { id, kind: "call", fn, args };
  }

  member(target: Expr, fn: string, overloads: readonly string[], args: readonly Expr[], t: CelType): CallExpr {
    const id = this.id(t);
    if (overloads.length) this.overloads.set(id, overloads);
    return { id, kind: "call", fn, target, args };
  }

  list(elements: readonly Expr[], t: CelType = listOf(DynType)): Expr {
    return { id: this.id(t), kind: "list", elements, optionalIndices: [] };
  }

  map(entries: readonly [Expr, Expr][], t: CelType): Expr {
    return {
      id: this.id(t),
      kind: "map",
      entries: entries.map(([key, value]) => ({ id: this.nextId++, key, value, optional: false })),
    };
  }

  private accu(t: CelType): Expr {
    return this.ident(accumulatorName, t);
  }

  /** range.all(v, pred(v)) */
  all(range: Expr, v: string, elemType: CelType, pred: (x: Expr) => Expr): Expr {
    const cond = this.call("@not_strictly_false", ["not_strictly_false"], [this.accu(BoolType)], BoolType);
    const step = this.call("_&&_", ["logical_and"], [this.accu(BoolType), pred(this.ident(v, elemType))], BoolType);
    return this.comp(range, v, this.lit(true, BoolType), cond, step, this.accu(BoolType), BoolType);
  }

  /** range.exists(v, pred(v)) */
  exists(range: Expr, v: string, elemType: CelType, pred: (x: Expr) => Expr): Expr {
    const not = this.call("!_", ["logical_not"], [this.accu(BoolType)], BoolType);
    const cond = this.call("@not_strictly_false", ["not_strictly_false"], [not], BoolType);
    const step = this.call("_||_", ["logical_or"], [this.accu(BoolType), pred(this.ident(v, elemType))], BoolType);
    return this.comp(range, v, this.lit(false, BoolType), cond, step, this.accu(BoolType), BoolType);
  }

  /** range.map(v, f(v)) */
  mapMacro(range: Expr, v: string, elemType: CelType, resultElem: CelType, f: (x: Expr) => Expr): Expr {
    const lt = listOf(resultElem);
    const step = this.call("_+_", ["add_list"], [this.accu(lt), this.list([f(this.ident(v, elemType))], lt)], lt);
    return this.comp(range, v, this.list([], lt), this.lit(true, BoolType), step, this.accu(lt), lt);
  }

  /** range.filter(v, pred(v)) */
  filter(range: Expr, v: string, elemType: CelType, pred: (x: Expr) => Expr): Expr {
    const lt = listOf(elemType);
    const add = this.call("_+_", ["add_list"], [this.accu(lt), this.list([this.ident(v, elemType)], lt)], lt);
    const step = this.call("_?_:_", ["conditional"], [pred(this.ident(v, elemType)), add, this.accu(lt)], lt);
    return this.comp(range, v, this.list([], lt), this.lit(true, BoolType), step, this.accu(lt), lt);
  }

  /** cel.bind(name, init, body(name)) */
  bind(name: string, init: Expr, t: CelType, body: (x: Expr) => Expr, resultType: CelType): Expr {
    const id = this.id(resultType);
    return {
      id,
      kind: "comprehension",
      iterVar: "#unused",
      iterRange: this.list([], listOf(DynType)),
      accuVar: name,
      accuInit: init,
      loopCondition: this.lit(false, BoolType),
      loopStep: this.ident(name, t),
      result: body(this.ident(name, t)),
    };
  }

  comp(range: Expr, v: string, init: Expr, cond: Expr, step: Expr, result: Expr, t: CelType, v2?: string): Expr {
    return {
      id: this.id(t),
      kind: "comprehension",
      iterVar: v,
      ...(v2 !== undefined ? { iterVar2: v2 } : {}),
      iterRange: range,
      accuVar: accumulatorName,
      accuInit: init,
      loopCondition: cond,
      loopStep: step,
      result,
    };
  }

  checked(expr: Expr): CheckedExpr {
    const parsed = { expr, source: new Source(""), positions: new Map(), macroCalls: new Map(), nextId: this.nextId };
    return {
      parsed,
      expr,
      types: this.types,
      overloads: this.overloads,
      references: this.references,
      resultType: this.types.get(expr.id) ?? DynType,
    };
  }
}

