// The CEL parser: recursive descent over cel-go's grammar (parser/gen/CEL.g4) building the AST
// the way cel-go's visitor (parser/parser.go, parser/helper.go) does — the same node ids in the
// same order, the same positions, the same folding of `-1` into a literal, the same balanced
// trees for `&&`/`||` chains, macros expanded on the spot, cel-go's error texts and limits.
//
// Syntax errors mimic ANTLR's wording ("mismatched input 'x' expecting …", "extraneous input …",
// "missing ')' at '<EOF>'", "token recognition error at: '…'") for the common cases. Recovery is
// simpler than ANTLR's: a deleted stray token ("extraneous input") lets parsing go on, any other
// syntax error ends it, so cel-go may report a few more follow-on errors than we do.
import { accumulatorName, type CallExpr, type Expr, type MapEntry, type ParsedExpr, type StructField } from "../ast.js";
import { CelCompileError, Source, type CelIssue } from "../source.js";
import { CelUint, type CelValue } from "../value.js";
import { T, errorDisplay, tokenDisplayNames, tokenize, type LexError, type Token } from "./lexer.js";
import { defaultMacros, macroKey, type MacroExpander, type MacroHelper } from "./macros.js";
import { UnescapeError, unescapeBytes, unescapeString } from "./unescape.js";

export interface ParseOptions {
  /** cel-go's MaxRecursionDepth (default 250; -1 for no limit). */
  readonly maxRecursionDepth?: number;
  /** cel-go's ExpressionSizeCodePointLimit (default 100,000; -1 for no limit). */
  readonly maxCodePoints?: number;
  /** `a.?b`, `a[?b]`, `[?x]`, `{?k: v}`, `T{?f: v}` (default true). */
  readonly enableOptionalSyntax?: boolean;
  /** Back-quoted field names `a.\`b-c\`` (default true, as cel-go's parser). */
  readonly enableIdentEscapeSyntax?: boolean;
  /** cel-go's ErrorRecoveryLimit (default 30). */
  readonly errorRecoveryLimit?: number;
  /** Macros by `name:argCount:receiverStyle` (default: Kubernetes' set, see macros.ts). */
  readonly macros?: ReadonlyMap<string, MacroExpander>;
}

const reservedIds = new Set([
  "as",
  "break",
  "const",
  "continue",
  "else",
  "false",
  "for",
  "function",
  "if",
  "import",
  "in",
  "let",
  "loop",
  "namespace",
  "null",
  "package",
  "return",
  "true",
  "var",
  "void",
  "while",
]);

/** Offset used for issues without a location (cel-go prints them as `<input>:-1:0`). */
export const noLocation = -1;

const errorReportingLimit = 100;

const exprStart: readonly T[] = [
  T.LBRACKET,
  T.LBRACE,
  T.LPAREN,
  T.DOT,
  T.MINUS,
  T.EXCLAM,
  T.TRUE,
  T.FALSE,
  T.NULL,
  T.NUM_FLOAT,
  T.NUM_INT,
  T.NUM_UINT,
  T.STRING,
  T.BYTES,
  T.IDENTIFIER,
];
const exprStartSet = new Set(exprStart);
const listStartSet = new Set([...exprStart, T.RBRACKET, T.COMMA, T.QUESTIONMARK]);
const mapStartSet = new Set([...exprStart, T.RBRACE, T.COMMA, T.QUESTIONMARK]);
const argsStartSet = new Set([...exprStart, T.RPAREN]);
const fieldStartSet = new Set([T.RBRACE, T.COMMA, T.QUESTIONMARK, T.IDENTIFIER, T.ESC_IDENTIFIER]);

function expecting(kinds: Iterable<T>): string {
  const sorted = [...new Set(kinds)].sort((a, b) => a - b);
  if (sorted.length === 1) return tokenDisplayNames[sorted[0]!]!;
  return `{${sorted.map((k) => tokenDisplayNames[k]).join(", ")}}`;
}

const relationOps = new Map<T, string>([
  [T.LESS, "_<_"],
  [T.LESS_EQUALS, "_<=_"],
  [T.GREATER_EQUALS, "_>=_"],
  [T.GREATER, "_>_"],
  [T.EQUALS, "_==_"],
  [T.NOT_EQUALS, "_!=_"],
  [T.IN, "@in"],
]);

const calcOps = new Map<T, [string, number]>([
  [T.STAR, ["_*_", 2]],
  [T.SLASH, ["_/_", 2]],
  [T.PERCENT, ["_%_", 2]],
  [T.PLUS, ["_+_", 1]],
  [T.MINUS, ["_-_", 1]],
]);

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;
const uint64Max = 2n ** 64n - 1n;

class Abort {}

class Parser {
  private tokens: Token[] = [];
  private pos = 0;
  nextId = 1;
  readonly positions = new Map<number, number>();
  readonly macroCalls = new Map<number, CallExpr>();
  readonly issues: CelIssue[] = [];
  /** Visitor nesting (cel-go's "max recursion depth") of each node's subtree, by id. */
  private readonly height: number[] = [];
  private syntaxErrors = 0;
  private recoveries = 0;
  private exprDepth = 0;
  private relationDepth = 0;
  private calcDepth = 0;
  private nesting = 0;
  private readonly maxDepth: number;
  private readonly recoveryLimit: number;
  private readonly optionalSyntax: boolean;
  private readonly identEscape: boolean;
  private readonly macros: ReadonlyMap<string, MacroExpander>;

  constructor(
    private readonly text: string,
    options: ParseOptions,
  ) {
    const depth = options.maxRecursionDepth ?? 250;
    this.maxDepth = depth === -1 || depth === 0 ? (depth === 0 ? 250 : Number.MAX_SAFE_INTEGER) : depth;
    const rl = options.errorRecoveryLimit ?? 30;
    this.recoveryLimit = rl === -1 ? Number.MAX_SAFE_INTEGER : rl === 0 ? 30 : rl;
    this.optionalSyntax = options.enableOptionalSyntax ?? true;
    this.identEscape = options.enableIdentEscapeSyntax ?? true;
    this.macros = options.macros ?? defaultMacros;
  }

  // ---- errors ----

  private syntaxError(offset: number, message: string): void {
    if (this.syntaxErrors < errorReportingLimit) {
      this.syntaxErrors++;
      this.issues.push({ offset, message: `Syntax error: ${message}` });
    } else {
      this.issues.push({ offset, message: `Syntax error: More than ${errorReportingLimit} syntax errors` });
      throw new Abort();
    }
  }

  private fatal(message: string): never {
    this.issues.push({ offset: noLocation, message });
    throw new Abort();
  }

  /** A recovery attempt; cel-go gives up after errorRecoveryLimit of them. */
  private recover(): void {
    if (this.recoveries === this.recoveryLimit) {
      this.recoveries++;
      const msg = `error recovery attempt limit exceeded: ${this.recoveryLimit}`;
      this.syntaxError(this.tok().start, msg);
      throw new Abort();
    }
    this.recoveries++;
  }

  /** A semantic error at `offset`: reported, and an error node (a null literal) takes the place. */
  private reportError(offset: number, message: string): Expr {
    const id = this.newId(offset);
    this.issues.push({ offset, message });
    return { id, kind: "const", value: null };
  }

  private display(t: Token): string {
    return t.kind === T.EOF ? "<EOF>" : errorDisplay(this.text.slice(t.start, t.end));
  }

  private mismatched(expected: string): never {
    const t = this.tok();
    this.recover();
    this.syntaxError(t.start, `mismatched input '${this.display(t)}' expecting ${expected}`);
    throw new Abort();
  }

  /** ANTLR's single-token deletion: the token after the offending one is what the rule wants. */
  private extraneous(expected: string): void {
    const t = this.tok();
    this.syntaxError(t.start, `extraneous input '${this.display(t)}' expecting ${expected}`);
    this.pos++;
  }

  /** ANTLR's `sync` before an optional part: the current token must be one of `allowed`. */
  private sync(allowed: ReadonlySet<T>): void {
    if (allowed.has(this.tok().kind)) return;
    const display = expecting(allowed);
    if (this.tok().kind !== T.EOF && allowed.has(this.la(2))) return this.extraneous(display);
    this.mismatched(display);
  }

  /** ANTLR's `match` of a closing token, with single-token deletion and insertion at the end. */
  private matchClose(kind: T): Token {
    const t = this.tok();
    if (t.kind === kind) {
      this.pos++;
      return t;
    }
    const display = tokenDisplayNames[kind]!;
    if (t.kind !== T.EOF && this.la(2) === kind) {
      this.recover();
      this.extraneous(display);
      return this.tokens[this.pos++]!;
    }
    if (t.kind === T.EOF && this.nesting === 1) {
      this.recover();
      this.syntaxError(t.start, `missing ${display} at '<EOF>'`);
      return t;
    }
    this.mismatched(display);
  }

  private matchColon(): Token {
    const t = this.tok();
    if (t.kind === T.COLON) {
      this.pos++;
      return t;
    }
    if (t.kind !== T.EOF && this.la(2) === T.COLON) {
      this.recover();
      this.extraneous("':'");
      return this.tokens[this.pos++]!;
    }
    if (exprStartSet.has(t.kind)) {
      this.recover();
      this.syntaxError(t.start, `missing ':' at '${this.display(t)}'`);
      return t;
    }
    this.mismatched("':'");
  }

  // ---- tokens and nodes ----

  private tok(): Token {
    return this.tokens[this.pos]!;
  }

  private la(n: number): T {
    const i = this.pos + n - 1;
    return i < this.tokens.length ? this.tokens[i]!.kind : T.EOF;
  }

  private tokenText(t: Token): string {
    return this.text.slice(t.start, t.end);
  }

  newId(offset: number): number {
    const id = this.nextId++;
    this.positions.set(id, offset);
    return id;
  }

  private deleteId(id: number): void {
    this.positions.delete(id);
    if (id === this.nextId - 1) this.nextId--;
  }

  private h(e: Expr): number {
    return this.height[e.id] ?? 0;
  }

  /** Records a node's visitor height; counting nodes (operators, selects, calls on a target, index) add one. */
  private setHeight(e: Expr, counts: boolean, ...children: Expr[]): Expr {
    let m = 0;
    for (const c of children) {
      const hc = this.height[c.id] ?? 0;
      if (hc > m) m = hc;
    }
    if (counts) {
      m++;
      if (m > this.maxDepth) this.fatal("max recursion depth exceeded");
    }
    this.height[e.id] = m;
    return e;
  }

  private enterRule(which: "expr" | "relation" | "calc"): void {
    const d = which === "expr" ? ++this.exprDepth : which === "relation" ? ++this.relationDepth : ++this.calcDepth;
    if (d > this.maxDepth) this.fatal(`expression recursion limit exceeded: ${this.maxDepth}`);
  }

  private call(id: number, fn: string, args: Expr[], target?: Expr): CallExpr {
    return target === undefined ? { id, kind: "call", fn, args } : { id, kind: "call", fn, target, args };
  }

  // ---- grammar ----

  parseStart(): Expr {
    const lexErrors: LexError[] = [];
    this.tokens = tokenize(this.text, lexErrors);
    for (const e of lexErrors) this.syntaxError(e.offset, e.message);
    const e = this.parseExpr();
    const t = this.tok();
    if (t.kind !== T.EOF) {
      if (this.la(2) === T.EOF) {
        this.recover();
        this.extraneous("<EOF>");
      } else this.mismatched("<EOF>");
    }
    return e;
  }

  private parseExpr(): Expr {
    this.enterRule("expr");
    const cond = this.parseOr();
    let result = cond;
    if (this.tok().kind === T.QUESTIONMARK) {
      const op = this.tokens[this.pos++]!;
      const opId = this.newId(op.start);
      const ifTrue = this.parseOr();
      this.matchColon();
      const ifFalse = this.parseExpr();
      result = this.setHeight(this.call(opId, "_?_:_", [cond, ifTrue, ifFalse]), true, cond, ifTrue, ifFalse);
    }
    this.exprDepth--;
    return result;
  }

  private parseOr(): Expr {
    return this.parseLogic(T.LOGICAL_OR, "_||_", () => this.parseAnd());
  }

  private parseAnd(): Expr {
    return this.parseLogic(T.LOGICAL_AND, "_&&_", () => this.parseRelation());
  }

  private parseLogic(kind: T, fn: string, next: () => Expr): Expr {
    const first = next();
    if (this.tok().kind !== kind) return first;
    const terms = [first];
    const ops: number[] = [];
    while (this.tok().kind === kind) {
      const op = this.tokens[this.pos++]!;
      terms.push(next());
      ops.push(this.newId(op.start));
    }
    const tree = this.balanced(fn, terms, ops, 0, ops.length - 1);
    return this.setHeight(tree, false, ...terms);
  }

  /** cel-go's logicManager: a balanced tree of a commutative operator's terms. */
  private balanced(fn: string, terms: Expr[], ops: number[], lo: number, hi: number): Expr {
    const mid = (lo + hi + 1) >> 1;
    const left = mid === lo ? terms[mid]! : this.balanced(fn, terms, ops, lo, mid - 1);
    const right = mid === hi ? terms[mid + 1]! : this.balanced(fn, terms, ops, mid + 1, hi);
    return this.call(ops[mid]!, fn, [left, right]);
  }

  private parseRelation(): Expr {
    this.enterRule("relation");
    let lhs = this.parseCalc(0);
    for (;;) {
      const fn = relationOps.get(this.tok().kind);
      if (fn === undefined) break;
      const op = this.tokens[this.pos++]!;
      const opId = this.newId(op.start);
      this.enterRule("relation");
      const rhs = this.parseCalc(0);
      this.relationDepth--;
      lhs = this.setHeight(this.call(opId, fn, [lhs, rhs]), true, lhs, rhs);
    }
    this.relationDepth--;
    return lhs;
  }

  private parseCalc(minPrec: number): Expr {
    this.enterRule("calc");
    let lhs = this.parseUnary();
    for (;;) {
      const op = calcOps.get(this.tok().kind);
      if (op === undefined || op[1] < minPrec) break;
      const opTok = this.tokens[this.pos++]!;
      const opId = this.newId(opTok.start);
      const rhs = this.parseCalc(op[1] + 1);
      lhs = this.setHeight(this.call(opId, op[0], [lhs, rhs]), true, lhs, rhs);
    }
    this.calcDepth--;
    return lhs;
  }

  private parseUnary(): Expr {
    let t = this.tok();
    if (!exprStartSet.has(t.kind)) {
      const display = expecting(exprStart);
      if (t.kind !== T.EOF && exprStartSet.has(this.la(2))) {
        this.recover();
        this.extraneous(display);
        t = this.tok();
      } else this.mismatched(display);
    }
    if (t.kind === T.EXCLAM || (t.kind === T.MINUS && this.la(2) !== T.NUM_INT && this.la(2) !== T.NUM_FLOAT)) {
      let n = 0;
      while (this.tok().kind === t.kind) {
        this.pos++;
        n++;
      }
      if (n % 2 === 0) return this.parseMember();
      const opId = this.newId(t.start);
      const operand = this.parseMember();
      const fn = t.kind === T.EXCLAM ? "!_" : "-_";
      return this.setHeight(this.call(opId, fn, [operand]), false, operand);
    }
    return this.parseMember();
  }

  private parseMember(): Expr {
    let e = this.parsePrimary();
    for (;;) {
      const t = this.tok();
      if (t.kind === T.DOT) {
        this.pos++;
        let optTok: Token | undefined;
        if (this.tok().kind === T.QUESTIONMARK) optTok = this.tokens[this.pos++];
        const idTok = this.tok();
        let field: string;
        if (idTok.kind === T.IDENTIFIER) {
          this.pos++;
          field = this.tokenText(idTok);
          if (!optTok && this.tok().kind === T.LPAREN) {
            const open = this.tokens[this.pos++]!;
            const opId = this.newId(open.start);
            const args = this.parseArgs();
            const operand = e;
            e = this.receiverCallOrMacro(opId, field, operand, args);
            this.setHeight(e, true, operand, ...args);
            continue;
          }
        } else if (idTok.kind === T.ESC_IDENTIFIER) {
          this.pos++;
          field = this.tokenText(idTok).slice(1, -1);
          if (!this.identEscape) {
            this.reportError(idTok.start, "unsupported syntax: '`'");
          }
        } else {
          this.recover();
          if (idTok.kind === T.TRUE || idTok.kind === T.FALSE || idTok.kind === T.NULL) {
            this.syntaxError(idTok.start, `mismatched input '${this.display(idTok)}' expecting IDENTIFIER`);
          } else {
            const shown = this.text.slice(t.start, idTok.kind === T.EOF ? t.end : idTok.end);
            this.syntaxError(idTok.start, `no viable alternative at input '${errorDisplay(shown)}'`);
          }
          throw new Abort();
        }
        const operand = e;
        if (optTok) {
          if (!this.optionalSyntax) e = this.reportError(t.start, "unsupported syntax '.?'");
          else {
            const lit: Expr = { id: this.newId(idTok.start), kind: "const", value: field };
            e = this.call(this.newId(t.start), "_?._", [operand, lit]);
          }
        } else {
          e = { id: this.newId(t.start), kind: "select", operand, field, testOnly: false };
        }
        this.setHeight(e, true, operand);
        continue;
      }
      if (t.kind === T.LBRACKET) {
        this.pos++;
        const opt = this.tok().kind === T.QUESTIONMARK;
        if (opt) this.pos++;
        const opId = this.newId(t.start);
        this.nesting++;
        const index = this.parseExpr();
        this.matchClose(T.RBRACKET);
        this.nesting--;
        const operand = e;
        if (opt && !this.optionalSyntax) e = this.reportError(t.start, "unsupported syntax '[?'");
        else e = this.call(opId, opt ? "_[?_]" : "_[_]", [operand, index]);
        this.setHeight(e, true, operand, index);
        continue;
      }
      return e;
    }
  }

  private parseArgs(): Expr[] {
    this.nesting++;
    const args: Expr[] = [];
    this.sync(argsStartSet);
    if (this.tok().kind !== T.RPAREN) {
      for (;;) {
        args.push(this.parseExpr());
        if (this.tok().kind !== T.COMMA) break;
        this.pos++;
      }
    }
    this.matchClose(T.RPAREN);
    this.nesting--;
    return args;
  }

  private parsePrimary(): Expr {
    const t = this.tok();
    switch (t.kind) {
      case T.DOT: {
        this.pos++;
        const next = this.tok();
        if (next.kind !== T.IDENTIFIER) {
          this.recover();
          const shown = this.text.slice(t.start, next.kind === T.EOF ? t.end : next.end);
          this.syntaxError(next.start, `no viable alternative at input '${errorDisplay(shown)}'`);
          throw new Abort();
        }
        return this.parseIdentLike(t);
      }
      case T.IDENTIFIER:
        return this.parseIdentLike(undefined);
      case T.LPAREN: {
        this.pos++;
        this.nesting++;
        const e = this.parseExpr();
        this.matchClose(T.RPAREN);
        this.nesting--;
        return e;
      }
      case T.LBRACKET:
        return this.parseList();
      case T.LBRACE:
        return this.parseMap();
      case T.MINUS: {
        const next = this.la(2);
        if (next === T.NUM_INT || next === T.NUM_FLOAT) {
          this.pos++;
          return this.parseLiteral(t);
        }
        break;
      }
      case T.NUM_INT:
      case T.NUM_UINT:
      case T.NUM_FLOAT:
      case T.STRING:
      case T.BYTES:
      case T.TRUE:
      case T.FALSE:
      case T.NULL:
        return this.parseLiteral(undefined);
    }
    const display = expecting(exprStart);
    if (t.kind !== T.EOF && exprStartSet.has(this.la(2))) {
      this.recover();
      this.extraneous(display);
      return this.parsePrimary();
    }
    this.mismatched(display);
  }

  private parseLiteral(sign: Token | undefined): Expr {
    const t = this.tokens[this.pos++]!;
    const start = sign ? sign.start : t.start;
    const text = this.tokenText(t);
    let value: CelValue;
    switch (t.kind) {
      case T.NUM_INT: {
        let v = BigInt(text);
        if (sign) v = -v;
        if (v < int64Min || v > int64Max) return this.reportError(start, "invalid int literal");
        value = v;
        break;
      }
      case T.NUM_UINT: {
        const v = BigInt(text.slice(0, -1));
        if (v > uint64Max) return this.reportError(start, "invalid uint literal");
        value = new CelUint(v);
        break;
      }
      case T.NUM_FLOAT: {
        const v = Number(sign ? "-" + text : text);
        if (!Number.isFinite(v)) return this.reportError(start, "invalid double literal");
        value = v;
        break;
      }
      case T.STRING:
        try {
          value = unescapeString(text);
        } catch (e) {
          if (!(e instanceof UnescapeError)) throw e;
          this.issues.push({ offset: start, message: e.message });
          value = text;
        }
        break;
      case T.BYTES:
        try {
          value = unescapeBytes(text.slice(1));
        } catch (e) {
          if (!(e instanceof UnescapeError)) throw e;
          this.issues.push({ offset: start, message: e.message });
          value = new TextEncoder().encode(text.slice(1));
        }
        break;
      case T.TRUE:
        value = true;
        break;
      case T.FALSE:
        value = false;
        break;
      default:
        value = null;
    }
    return { id: this.newId(start), kind: "const", value };
  }

  /** `[.]a`, `[.]f(…)`, `[.]a.b.C{…}`. */
  private parseIdentLike(leadingDot: Token | undefined): Expr {
    // A message construction: IDENT ('.' IDENT)* '{'.
    let j = this.pos + 1;
    while (this.tokens[j]!.kind === T.DOT && this.tokens[j + 1]!.kind === T.IDENTIFIER) j += 2;
    if (this.tokens[j]!.kind === T.LBRACE) return this.parseStruct(leadingDot, j);
    const idTok = this.tokens[this.pos++]!;
    const name = this.tokenText(idTok);
    const start = leadingDot ? leadingDot.start : idTok.start;
    const fullName = leadingDot ? "." + name : name;
    if (this.tok().kind === T.LPAREN) {
      const open = this.tokens[this.pos++]!;
      if (reservedIds.has(name)) {
        const err = this.reportError(start, `reserved identifier: ${name}`);
        this.parseArgs();
        return err;
      }
      const opId = this.newId(open.start);
      const args = this.parseArgs();
      const e = this.globalCallOrMacro(opId, fullName, args);
      return this.setHeight(e, false, ...args);
    }
    if (reservedIds.has(name)) return this.reportError(start, `reserved identifier: ${name}`);
    return { id: this.newId(idTok.start), kind: "ident", name: fullName };
  }

  private parseStruct(leadingDot: Token | undefined, braceIndex: number): Expr {
    let typeName = "";
    while (this.pos < braceIndex) {
      const t = this.tokens[this.pos++]!;
      typeName += this.tokenText(t);
    }
    if (leadingDot) typeName = "." + typeName;
    const brace = this.tokens[this.pos++]!;
    const objId = this.newId(brace.start);
    this.nesting++;
    const fields: StructField[] = [];
    this.sync(fieldStartSet);
    let trailingComma = false;
    if (this.tok().kind === T.COMMA && this.la(2) === T.RBRACE) {
      this.pos++;
      trailingComma = true;
    } else if (this.tok().kind !== T.RBRACE) {
      for (;;) {
        let optTok: Token | undefined;
        if (this.tok().kind === T.QUESTIONMARK) optTok = this.tokens[this.pos++];
        const nameTok = this.tok();
        if (nameTok.kind !== T.IDENTIFIER && nameTok.kind !== T.ESC_IDENTIFIER) {
          this.mismatched(expecting([T.IDENTIFIER, T.ESC_IDENTIFIER]));
        }
        this.pos++;
        let name = this.tokenText(nameTok);
        if (nameTok.kind === T.ESC_IDENTIFIER) {
          name = name.slice(1, -1);
          if (!this.identEscape) this.reportError(nameTok.start, "unsupported syntax: '`'");
        }
        const colon = this.matchColon();
        const fieldId = this.newId(colon.start);
        if (optTok && !this.optionalSyntax) this.reportError(optTok.start, "unsupported syntax '?'");
        const value = this.parseExpr();
        fields.push({ id: fieldId, name, value, optional: optTok !== undefined });
        if (this.tok().kind !== T.COMMA) break;
        const after = this.la(2);
        this.pos++;
        if (after !== T.QUESTIONMARK && after !== T.IDENTIFIER && after !== T.ESC_IDENTIFIER) {
          trailingComma = true;
          break;
        }
      }
    }
    this.closeEntries(T.RBRACE, trailingComma);
    this.nesting--;
    const e: Expr = { id: objId, kind: "struct", typeName, fields };
    return this.setHeight(e, false, ...fields.map((f) => f.value));
  }

  /** The `','? '}'` (or `']'`) that ends a list, map or message literal. */
  private closeEntries(close: T, trailingComma: boolean): void {
    const t = this.tok();
    if (t.kind === close) {
      this.pos++;
      return;
    }
    const display = trailingComma ? tokenDisplayNames[close]! : expecting([close, T.COMMA]);
    if (t.kind !== T.EOF && this.la(2) === close) {
      this.recover();
      this.extraneous(display);
      this.pos++;
      return;
    }
    this.mismatched(display);
  }

  private parseList(): Expr {
    const open = this.tokens[this.pos++]!;
    const listId = this.newId(open.start);
    this.nesting++;
    const elements: Expr[] = [];
    const optionalIndices: number[] = [];
    this.sync(listStartSet);
    let trailingComma = false;
    if (this.tok().kind === T.COMMA && this.la(2) === T.RBRACKET) {
      this.pos++;
      trailingComma = true;
    } else if (this.tok().kind !== T.RBRACKET) {
      for (;;) {
        let optTok: Token | undefined;
        if (this.tok().kind === T.QUESTIONMARK) optTok = this.tokens[this.pos++];
        const e = this.parseExpr();
        if (optTok) {
          if (this.optionalSyntax) optionalIndices.push(elements.length);
          else this.reportError(optTok.start, "unsupported syntax '?'");
        }
        elements.push(e);
        if (this.tok().kind !== T.COMMA) break;
        const after = this.la(2);
        this.pos++;
        if (after === T.RBRACKET) {
          trailingComma = true;
          break;
        }
      }
    }
    this.closeEntries(T.RBRACKET, trailingComma);
    this.nesting--;
    const e: Expr = { id: listId, kind: "list", elements, optionalIndices };
    return this.setHeight(e, false, ...elements);
  }

  private parseMap(): Expr {
    const open = this.tokens[this.pos++]!;
    const mapId = this.newId(open.start);
    this.nesting++;
    const entries: MapEntry[] = [];
    this.sync(mapStartSet);
    let trailingComma = false;
    if (this.tok().kind === T.COMMA && this.la(2) === T.RBRACE) {
      this.pos++;
      trailingComma = true;
    } else if (this.tok().kind !== T.RBRACE) {
      for (;;) {
        let optTok: Token | undefined;
        if (this.tok().kind === T.QUESTIONMARK) optTok = this.tokens[this.pos++];
        // cel-go numbers the entry (at its colon) before its key.
        const entryId = this.nextId++;
        const key = this.parseExpr();
        const colon = this.matchColon();
        this.positions.set(entryId, colon.start);
        if (optTok && !this.optionalSyntax) this.reportError(optTok.start, "unsupported syntax '?'");
        const value = this.parseExpr();
        entries.push({ id: entryId, key, value, optional: optTok !== undefined });
        if (this.tok().kind !== T.COMMA) break;
        const after = this.la(2);
        this.pos++;
        if (after === T.RBRACE) {
          trailingComma = true;
          break;
        }
      }
    }
    this.closeEntries(T.RBRACE, trailingComma);
    this.nesting--;
    const e: Expr = { id: mapId, kind: "map", entries };
    const children: Expr[] = [];
    for (const en of entries) children.push(en.key, en.value);
    return this.setHeight(e, false, ...children);
  }

  // ---- macros ----

  private globalCallOrMacro(id: number, fn: string, args: Expr[]): Expr {
    return this.expandMacro(id, fn, undefined, args) ?? this.call(id, fn, args);
  }

  private receiverCallOrMacro(id: number, fn: string, target: Expr, args: Expr[]): Expr {
    return this.expandMacro(id, fn, target, args) ?? this.call(id, fn, args, target);
  }

  private expandMacro(callId: number, fn: string, target: Expr | undefined, args: Expr[]): Expr | undefined {
    const expander = this.macros.get(macroKey(fn, args.length, target !== undefined));
    if (!expander) return undefined;
    const at = this.positions.get(callId) ?? noLocation;
    const helper = this.macroHelper(at);
    const result = expander(helper, target, args);
    if (result === undefined) return undefined;
    if ("errorAt" in result) {
      const loc = this.positions.get(result.errorAt) ?? at;
      this.deleteId(callId);
      return this.reportError(loc, result.message);
    }
    this.macroCalls.set(result.id, this.call(0, fn, args, target));
    this.deleteId(callId);
    return result;
  }

  /**
   * A copy of `e` with fresh ids, as cel-go's macro helper Copy: a node's id is taken before its
   * children's, keeps the original node's position, and map entries / struct fields get ids at
   * the macro call's position.
   */
  private copyExpr(e: Expr, at: number): Expr {
    const id = this.newId(this.positions.get(e.id) ?? at);
    switch (e.kind) {
      case "const":
        return { id, kind: "const", value: e.value };
      case "ident":
        return { id, kind: "ident", name: e.name };
      case "select":
        return { id, kind: "select", operand: this.copyExpr(e.operand, at), field: e.field, testOnly: e.testOnly };
      case "call": {
        const args = e.args.map((a) => this.copyExpr(a, at));
        if (!e.target) return { id, kind: "call", fn: e.fn, args };
        return { id, kind: "call", fn: e.fn, target: this.copyExpr(e.target, at), args };
      }
      case "list":
        return { id, kind: "list", elements: e.elements.map((x) => this.copyExpr(x, at)), optionalIndices: [...e.optionalIndices] };
      case "map":
        return {
          id,
          kind: "map",
          entries: e.entries.map((en) => {
            const entryId = this.newId(at);
            const key = this.copyExpr(en.key, at);
            return { id: entryId, key, value: this.copyExpr(en.value, at), optional: en.optional };
          }),
        };
      case "struct":
        return {
          id,
          kind: "struct",
          typeName: e.typeName,
          fields: e.fields.map((f) => {
            const fieldId = this.newId(at);
            return { id: fieldId, name: f.name, value: this.copyExpr(f.value, at), optional: f.optional };
          }),
        };
      case "comprehension": {
        const iterRange = this.copyExpr(e.iterRange, at);
        const accuInit = this.copyExpr(e.accuInit, at);
        const loopCondition = this.copyExpr(e.loopCondition, at);
        const loopStep = this.copyExpr(e.loopStep, at);
        const result = this.copyExpr(e.result, at);
        return {
          id,
          kind: "comprehension",
          iterVar: e.iterVar,
          ...(e.iterVar2 !== undefined ? { iterVar2: e.iterVar2 } : {}),
          iterRange,
          accuVar: e.accuVar,
          accuInit,
          loopCondition,
          loopStep,
          result,
        };
      }
    }
  }

  private macroHelper(at: number): MacroHelper {
    const id = () => this.newId(at);
    return {
      lit: (value) => ({ id: id(), kind: "const", value }),
      ident: (name) => ({ id: id(), kind: "ident", name }),
      accu: () => ({ id: id(), kind: "ident", name: accumulatorName }),
      call: (fn, ...args) => ({ id: id(), kind: "call", fn, args }),
      member: (fn, target, ...args) => ({ id: id(), kind: "call", fn, target, args }),
      copy: (e) => this.copyExpr(e, at),
      list: (...elements) => ({ id: id(), kind: "list", elements, optionalIndices: [] }),
      map: () => ({ id: id(), kind: "map", entries: [] }),
      presence: (operand, field) => ({ id: id(), kind: "select", operand, field, testOnly: true }),
      comprehension: (iterRange, iterVar, iterVar2, accuVar, accuInit, loopCondition, loopStep, result) => {
        const e: Expr = {
          id: id(),
          kind: "comprehension",
          iterVar,
          ...(iterVar2 !== undefined ? { iterVar2 } : {}),
          iterRange,
          accuVar,
          accuInit,
          loopCondition,
          loopStep,
          result,
        };
        return e;
      },
    };
  }
}

function codePointCount(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/**
 * Parses a CEL expression as cel-go does (macros expanded). Throws CelCompileError with cel-go's
 * messages when the text is not a valid expression.
 */
export function parse(text: string, options: ParseOptions = {}): ParsedExpr {
  const source = new Source(text);
  const limit = options.maxCodePoints ?? 100_000;
  if (limit !== -1) {
    const size = codePointCount(text);
    if (size > limit) {
      throw new CelCompileError(source, [
        { offset: noLocation, message: `expression code point size exceeds limit: size: ${size}, limit ${limit}` },
      ]);
    }
  }
  const p = new Parser(text, options);
  let expr: Expr | undefined;
  let issues: CelIssue[];
  try {
    expr = p.parseStart();
    issues = p.issues;
  } catch (e) {
    if (e instanceof Abort) issues = p.issues;
    else if (e instanceof RangeError) {
      // The JS stack ran out before the configured recursion limit did.
      issues = [...p.issues, { offset: noLocation, message: `expression recursion limit exceeded: ${options.maxRecursionDepth ?? 250}` }];
    } else throw e;
  }
  if (issues.length > 0 || !expr) {
    const sorted = issues.map((issue, i) => ({ issue, i })).sort((a, b) => a.issue.offset - b.issue.offset || a.i - b.i);
    throw new CelCompileError(
      source,
      sorted.map((s) => s.issue),
    );
  }
  return { expr, source, positions: p.positions, macroCalls: p.macroCalls, nextId: p.nextId };
}
