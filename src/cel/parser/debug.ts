// A debug rendering of the AST in the layout of cel-go's common/debug ToDebugString (used by
// tests to compare with cel-go's recorded parse results, and handy when debugging).
import type { Expr, MapEntry, StructField } from "../ast.js";
import { CelUint, type CelValue } from "../value.js";
import { goQuoteRunes } from "../../apimachinery/go-quote.js";

/** Text appended after each node (cel-go's "adorner"): ids, kinds, positions, … */
export type Adorner = (node: Expr | MapEntry | StructField, isEntry: boolean) => string;

const noAdorner: Adorner = () => "";

/** cel-go's KindAdorner names (proto oneof types). */
export const kindAdorner: Adorner = (node, isEntry) => `^#${kindName(node, isEntry)}#`;

/** cel-go's kindAndIDAdorner (`^#id:kind#`). */
export const kindAndIdAdorner: Adorner = (node, isEntry) => `^#${node.id}:${kindName(node, isEntry)}#`;

function kindName(node: Expr | MapEntry | StructField, isEntry: boolean): string {
  if (isEntry) return "*expr.Expr_CreateStruct_Entry";
  const e = node as Expr;
  switch (e.kind) {
    case "const":
      return `*expr.Constant_${constKind(e.value)}`;
    case "ident":
      return "*expr.Expr_IdentExpr";
    case "select":
      return "*expr.Expr_SelectExpr";
    case "call":
      return "*expr.Expr_CallExpr";
    case "list":
      return "*expr.Expr_ListExpr";
    case "map":
    case "struct":
      return "*expr.Expr_StructExpr";
    case "comprehension":
      return "*expr.Expr_ComprehensionExpr";
  }
}

function constKind(v: CelValue): string {
  if (v === null) return "NullValue";
  switch (typeof v) {
    case "boolean":
      return "BoolValue";
    case "bigint":
      return "Int64Value";
    case "number":
      return "DoubleValue";
    case "string":
      return "StringValue";
  }
  if (v instanceof CelUint) return "Uint64Value";
  if (v instanceof Uint8Array) return "BytesValue";
  return "Unknown";
}

/** UTF-8 bytes as Go would range over them: decoded runes, invalid bytes as numbers. */
function* bytesAsRunes(b: Uint8Array): Generator<string | number> {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    const n = c < 0x80 ? 1 : c >= 0xc2 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 0;
    if (n === 0 || i + n > b.length) {
      yield c;
      i++;
      continue;
    }
    let cp = n === 1 ? c : c & (0xff >> (n + 1));
    let ok = true;
    for (let k = 1; k < n; k++) {
      const d = b[i + k]!;
      if ((d & 0xc0) !== 0x80) ok = false;
      cp = (cp << 6) | (d & 0x3f);
    }
    const min = [0, 0, 0x80, 0x800, 0x10000][n]!;
    if (!ok || cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      yield c;
      i++;
      continue;
    }
    yield String.fromCodePoint(cp);
    i += n;
  }
}

/** Go's `%v` of a float64. */
function formatDouble(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  const exp = Math.floor(Math.log10(Math.abs(v)));
  const [mant, e] = v.toExponential().split("e") as [string, string];
  const realExp = Number(e);
  if (realExp < -4 || realExp >= 21 || (realExp >= 6 && exp >= 6)) {
    const sign = realExp < 0 ? "-" : "+";
    return `${mant}e${sign}${String(Math.abs(realExp)).padStart(2, "0")}`;
  }
  return String(v);
}

export function formatLiteral(v: CelValue): string {
  if (v === null) return "null";
  switch (typeof v) {
    case "boolean":
      return String(v);
    case "bigint":
      return v.toString();
    case "number":
      return formatDouble(v);
    case "string":
      return goQuoteRunes(v);
  }
  if (v instanceof CelUint) return `${v.value}u`;
  if (v instanceof Uint8Array) return "b" + goQuoteRunes(bytesAsRunes(v));
  return String(v);
}

class Writer {
  out = "";
  private indent = 0;
  private lineStart = true;
  constructor(private readonly adorn: Adorner) {}

  append(s: string): void {
    if (this.lineStart) {
      this.lineStart = false;
      this.out += "  ".repeat(this.indent);
    }
    this.out += s;
  }
  line(): void {
    this.out += "\n";
    this.lineStart = true;
  }
  in(): void {
    this.indent++;
  }
  outdent(): void {
    this.indent--;
  }

  expr(e: Expr): void {
    switch (e.kind) {
      case "const":
        this.append(formatLiteral(e.value));
        break;
      case "ident":
        this.append(e.name);
        break;
      case "select":
        this.expr(e.operand);
        this.append("." + e.field);
        if (e.testOnly) this.append("~test-only~");
        break;
      case "call":
        if (e.target) {
          this.expr(e.target);
          this.append(".");
        }
        this.append(e.fn + "(");
        if (e.args.length > 0) {
          this.in();
          this.line();
          e.args.forEach((a, i) => {
            if (i > 0) {
              this.append(",");
              this.line();
            }
            this.expr(a);
          });
          this.outdent();
          this.line();
        }
        this.append(")");
        break;
      case "list":
        this.append("[");
        if (e.elements.length > 0) {
          this.line();
          this.in();
          e.elements.forEach((a, i) => {
            if (i > 0) {
              this.append(",");
              this.line();
            }
            if (e.optionalIndices.includes(i)) this.append("?");
            this.expr(a);
          });
          this.outdent();
          this.line();
        }
        this.append("]");
        break;
      case "map":
      case "struct": {
        if (e.kind === "struct") this.append(e.typeName);
        this.append("{");
        const entries: readonly (MapEntry | StructField)[] = e.kind === "map" ? e.entries : e.fields;
        if (entries.length > 0) {
          this.line();
          this.in();
          entries.forEach((en, i) => {
            if (i > 0) {
              this.append(",");
              this.line();
            }
            if (en.optional) this.append("?");
            if ("key" in en) this.expr(en.key);
            else this.append(en.name);
            this.append(":");
            this.expr(en.value);
            this.append(this.adorn(en, true));
          });
          this.outdent();
          this.line();
        }
        this.append("}");
        break;
      }
      case "comprehension":
        this.append("__comprehension__(");
        this.in();
        this.line();
        this.append("// Variable");
        this.line();
        this.append(e.iterVar + ",");
        this.line();
        if (e.iterVar2 !== undefined) {
          this.append(e.iterVar2 + ",");
          this.line();
        }
        this.append("// Target");
        this.line();
        this.expr(e.iterRange);
        this.append(",");
        this.line();
        this.append("// Accumulator");
        this.line();
        this.append(e.accuVar + ",");
        this.line();
        this.append("// Init");
        this.line();
        this.expr(e.accuInit);
        this.append(",");
        this.line();
        this.append("// LoopCondition");
        this.line();
        this.expr(e.loopCondition);
        this.append(",");
        this.line();
        this.append("// LoopStep");
        this.line();
        this.expr(e.loopStep);
        this.append(",");
        this.line();
        this.append("// Result");
        this.line();
        this.expr(e.result);
        this.append(")");
        this.outdent();
        break;
    }
    this.append(this.adorn(e, false));
  }
}

/** The expression in cel-go's debug layout, each node followed by `adorner`'s text. */
export function formatExpr(e: Expr, adorner: Adorner = noAdorner): string {
  const w = new Writer(adorner);
  w.expr(e);
  return w.out;
}
