// Test helper: builds ASTs by hand (ids and positions) the way the parser leaves them after
// macro expansion, so the checker can be tested without the parser.
import { accumulatorName, type CallExpr, type Expr, type ParsedExpr } from "../ast.js";
import { Source } from "../source.js";
import type { CelValue } from "../value.js";

export class AstBuilder {
  private nextId = 1;
  readonly positions = new Map<number, number>();
  readonly macroCalls = new Map<number, CallExpr>();

  private id(at?: number): number {
    const id = this.nextId++;
    this.positions.set(id, at ?? 0);
    return id;
  }

  c(value: CelValue, at?: number): Expr {
    return { id: this.id(at), kind: "const", value };
  }
  i(name: string, at?: number): Expr {
    return { id: this.id(at), kind: "ident", name };
  }
  /** `a.b.c` from a dotted path (first segment an ident). */
  path(dotted: string, at?: number): Expr {
    const [first, ...rest] = dotted.split(".");
    let e = this.i(first!, at);
    for (const f of rest) e = this.sel(e, f, at);
    return e;
  }
  sel(operand: Expr, field: string, at?: number): Expr {
    return { id: this.id(at), kind: "select", operand, field, testOnly: false };
  }
  has(operand: Expr, field: string, at?: number): Expr {
    return { id: this.id(at), kind: "select", operand, field, testOnly: true };
  }
  call(fn: string, args: Expr[], at?: number): Expr {
    return { id: this.id(at), kind: "call", fn, args };
  }
  member(target: Expr, fn: string, args: Expr[], at?: number): Expr {
    return { id: this.id(at), kind: "call", fn, target, args };
  }
  list(elements: Expr[], optionalIndices: number[] = [], at?: number): Expr {
    return { id: this.id(at), kind: "list", elements, optionalIndices };
  }
  map(entries: [Expr, Expr, boolean?][], at?: number): Expr {
    return {
      id: this.id(at),
      kind: "map",
      entries: entries.map(([key, value, optional]) => ({ id: this.id(at), key, value, optional: optional ?? false })),
    };
  }
  struct(typeName: string, fields: [string, Expr][], at?: number): Expr {
    return {
      id: this.id(at),
      kind: "struct",
      typeName,
      fields: fields.map(([name, value]) => ({ id: this.id(at), name, value, optional: false })),
    };
  }
  /** `range.all(v, pred)` / `range.all(k, v, pred)` as the parser expands it. */
  all(range: Expr, vars: string[], pred: (b: AstBuilder) => Expr): Expr {
    const accu = () => this.i(accumulatorName);
    return {
      id: this.id(),
      kind: "comprehension",
      iterVar: vars[0]!,
      iterVar2: vars[1],
      iterRange: range,
      accuVar: accumulatorName,
      accuInit: this.c(true),
      loopCondition: this.call("@not_strictly_false", [accu()]),
      loopStep: this.call("_&&_", [accu(), pred(this)]),
      result: accu(),
    };
  }
  /** `range.map(v, f)`. */
  mapMacro(range: Expr, v: string, f: (b: AstBuilder) => Expr): Expr {
    const accu = () => this.i(accumulatorName);
    return {
      id: this.id(),
      kind: "comprehension",
      iterVar: v,
      iterRange: range,
      accuVar: accumulatorName,
      accuInit: this.list([]),
      loopCondition: this.c(true),
      loopStep: this.call("_+_", [accu(), this.list([f(this)])]),
      result: accu(),
    };
  }
  /** A comprehension with explicit parts (for error cases). */
  comprehension(parts: { iterVar: string; iterVar2?: string; range: Expr; init: Expr; cond: Expr; step: Expr; result: Expr }): Expr {
    return {
      id: this.id(),
      kind: "comprehension",
      iterVar: parts.iterVar,
      iterVar2: parts.iterVar2,
      iterRange: parts.range,
      accuVar: accumulatorName,
      accuInit: parts.init,
      loopCondition: parts.cond,
      loopStep: parts.step,
      result: parts.result,
    };
  }
  parsed(expr: Expr, text = "<expr>"): ParsedExpr {
    return { expr, source: new Source(text), positions: this.positions, macroCalls: this.macroCalls, nextId: this.nextId };
  }
}
