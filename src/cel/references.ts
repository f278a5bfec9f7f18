// The variables an expression reads, found in its parsed form: an identifier that is neither
// declared by the environment nor bound by an enclosing comprehension (all, exists, map, …) is
// refused at compile time, as upstream's checker refuses an "undeclared reference".
import type { Expr, ParsedExpr } from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";

export interface Reference {
  name: string;
  /** Offset of the identifier in the expression (from the parser's source info). */
  offset: number;
}

/** Identifiers read as variables, in order of appearance, with comprehension variables bound. */
export function freeReferences(parsed: ParsedExpr): Reference[] {
  const out: Reference[] = [];
  const positions = parsed.sourceInfo?.positions ?? {};
  const walk = (e: Expr | undefined, bound: ReadonlySet<string>): void => {
    if (!e) return;
    const k = e.exprKind;
    switch (k.case) {
      case "identExpr":
        if (!bound.has(k.value.name)) out.push({ name: k.value.name, offset: positions[String(e.id)] ?? 0 });
        return;
      case "selectExpr":
        return walk(k.value.operand, bound);
      case "callExpr":
        walk(k.value.target, bound);
        for (const a of k.value.args) walk(a, bound);
        return;
      case "listExpr":
        for (const a of k.value.elements) walk(a, bound);
        return;
      case "structExpr":
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === "mapKey") walk(entry.keyKind.value, bound);
          walk(entry.value, bound);
        }
        return;
      case "comprehensionExpr": {
        const c = k.value;
        walk(c.iterRange, bound);
        walk(c.accuInit, bound);
        const inner = new Set(bound).add(c.iterVar).add(c.accuVar);
        if (c.iterVar2) inner.add(c.iterVar2);
        walk(c.loopCondition, inner);
        walk(c.loopStep, inner);
        walk(c.result, new Set(bound).add(c.accuVar));
        return;
      }
      default:
        return;
    }
  };
  walk(parsed.expr, new Set());
  return out;
}
