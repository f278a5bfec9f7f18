// A reader of the declarations of Go API packages, enough to learn which string types are
// enumerations (a `+enum` marker in their doc comment), the constants of those types, and the
// struct fields that use them. It reads the gofmt'd type packages of Kubernetes, nothing more
// general: anything it does not understand stops it with the file and the token.
//
// readGoPackage(dir) → { dir, importsByFile: Map<file, Map<alias, import path>>,
//                         types: Map<name, TypeDecl>, consts: Map<name, ConstDecl> }
//   TypeDecl  = { name, alias: boolean (a `type A = B`), expr: TypeExpr, tags: Set<marker name> }
//   ConstDecl = { name, type?: TypeExpr, value?: ValueExpr }
//   TypeExpr  = { kind: "named", pkg?, name, file? (whose imports name pkg) } | { kind: "pointer"|"slice", elem }
//             | { kind: "map", key, elem } | { kind: "struct", fields: Field[] } | { kind: "other" }
//   Field     = { name?: string (absent when embedded), type: TypeExpr, tag: string }
//   ValueExpr = { kind: "string", value } | { kind: "ref", pkg?, name, file? }
//             | { kind: "convert", type: TypeExpr, arg: ValueExpr } | { kind: "concat", parts }
//             | { kind: "other" }

import fs from "node:fs";
import path from "node:path";

const KEYWORDS = new Set([
  "break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough", "for", "func",
  "go", "goto", "if", "import", "interface", "map", "package", "range", "return", "select", "struct",
  "switch", "type", "var",
]);
// After these keywords (as after an identifier or a literal) a line break ends the statement.
const KEYWORDS_ENDING_STATEMENT = new Set(["break", "continue", "fallthrough", "return"]);

/** Go tokens, with the automatic semicolons of the language spec and each token's doc comment. */
function tokenize(src, file) {
  const tokens = [];
  // Comment lines of the current group, and the line the group last grew on.
  let group = [];
  let groupEndLine = -2;
  let line = 1;
  let i = 0;
  const last = () => tokens[tokens.length - 1];
  const endsStatement = (t) =>
    t &&
    ((t.type === "ident" && (!KEYWORDS.has(t.text) || KEYWORDS_ENDING_STATEMENT.has(t.text))) ||
      t.type === "string" || t.type === "number" || t.type === "char" ||
      (t.type === "punct" && [")", "]", "}", "++", "--"].includes(t.text)));
  const push = (type, text, extra = {}) => {
    const doc = groupEndLine === line - 1 ? group : [];
    tokens.push({ type, text, line, doc, ...extra });
  };
  while (i < src.length) {
    const c = src[i];
    if (c === "\n") {
      if (endsStatement(last())) tokens.push({ type: "punct", text: ";", line, doc: [], auto: true });
      line++;
      i++;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") {
      i++;
      continue;
    }
    if (src.startsWith("//", i)) {
      const end = src.indexOf("\n", i);
      const text = src.slice(i + 2, end < 0 ? src.length : end);
      if (groupEndLine !== line - 1) group = [];
      group = [...group, text];
      groupEndLine = line;
      i = end < 0 ? src.length : end;
      continue;
    }
    if (src.startsWith("/*", i)) {
      const end = src.indexOf("*/", i + 2);
      if (end < 0) throw new Error(`${file}:${line}: unterminated comment`);
      const body = src.slice(i + 2, end);
      const newlines = body.split("\n").length - 1;
      if (newlines > 0 && endsStatement(last())) tokens.push({ type: "punct", text: ";", line, doc: [], auto: true });
      line += newlines;
      i = end + 2;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') {
        if (src[j] === "\\") j++;
        if (src[j] === "\n") throw new Error(`${file}:${line}: newline in string`);
        j++;
      }
      push("string", src.slice(i, j + 1), { value: JSON.parse(src.slice(i, j + 1)) });
      i = j + 1;
      continue;
    }
    if (c === "`") {
      const end = src.indexOf("`", i + 1);
      if (end < 0) throw new Error(`${file}:${line}: unterminated raw string`);
      const value = src.slice(i + 1, end);
      push("string", src.slice(i, end + 1), { value });
      line += value.split("\n").length - 1;
      i = end + 1;
      continue;
    }
    if (c === "'") {
      let j = i + 1;
      while (src[j] !== "'") j += src[j] === "\\" ? 2 : 1;
      push("char", src.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i, i + 200));
    if (word) {
      push("ident", word[0]);
      i += word[0].length;
      continue;
    }
    const num = /^(?:0[xX][0-9a-fA-F_]+|[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9]+)?)/.exec(src.slice(i, i + 100));
    if (num) {
      push("number", num[0]);
      i += num[0].length;
      continue;
    }
    const op = /^(?:<<=|>>=|&\^=|\.\.\.|&&|\|\||<-|\+\+|--|==|!=|<=|>=|:=|\+=|-=|\*=|\/=|%=|&=|\|=|\^=|<<|>>|&\^|[-+*\/%&|^<>=!(){}\[\],;.:~])/.exec(src.slice(i, i + 3));
    if (!op) throw new Error(`${file}:${line}: unexpected character ${JSON.stringify(c)}`);
    push("punct", op[0]);
    i += op[0].length;
  }
  if (endsStatement(last())) tokens.push({ type: "punct", text: ";", line, doc: [], auto: true });
  return tokens;
}

/** The marker names (`+enum`, `+optional`, `+k8s:...`) of a doc comment. */
function markersOf(doc) {
  const out = new Set();
  for (const l of doc) {
    const m = /^\s*\+([A-Za-z0-9_:.-]+)/.exec(l);
    if (m) out.add(m[1]);
  }
  return out;
}

class Parser {
  constructor(tokens, file) {
    this.t = tokens;
    this.pos = 0;
    this.file = file;
    this.base = path.basename(file);
  }
  peek(k = 0) {
    return this.t[this.pos + k];
  }
  next() {
    const tok = this.t[this.pos++];
    if (!tok) throw new Error(`${this.file}: unexpected end of file`);
    return tok;
  }
  is(text, k = 0) {
    const tok = this.peek(k);
    return tok !== undefined && tok.text === text && tok.type !== "string";
  }
  expect(text) {
    const tok = this.next();
    if (tok.text !== text) throw this.error(tok, `expected ${text}`);
    return tok;
  }
  ident() {
    const tok = this.next();
    if (tok.type !== "ident") throw this.error(tok, "expected an identifier");
    return tok.text;
  }
  error(tok, what) {
    return new Error(`${this.file}:${tok?.line ?? "?"}: ${what}, got ${JSON.stringify(tok?.text)}`);
  }
  /** Skips a balanced (), [] or {} group starting at the current token. */
  skipGroup() {
    const open = this.next().text;
    const close = { "(": ")", "[": "]", "{": "}" }[open];
    let depth = 1;
    while (depth > 0) {
      const x = this.next().text;
      if (x === open) depth++;
      else if (x === close) depth--;
    }
  }
  /** Skips to the end of the current statement, over balanced groups. */
  skipStatement() {
    while (!this.is(";")) {
      if (this.is("(") || this.is("[") || this.is("{")) this.skipGroup();
      else this.next();
    }
    this.next();
  }
  endStatement() {
    if (this.is(")") || this.is("}")) return; // a ";" may be left out before a closing ) or }
    this.expect(";");
  }

  typeExpr() {
    const tok = this.peek();
    if (this.is("*")) {
      this.next();
      return { kind: "pointer", elem: this.typeExpr() };
    }
    if (this.is("[")) {
      this.next();
      if (!this.is("]")) while (!this.is("]")) this.next(); // array length
      this.expect("]");
      return { kind: "slice", elem: this.typeExpr() };
    }
    if (this.is("map")) {
      this.next();
      this.expect("[");
      const key = this.typeExpr();
      this.expect("]");
      return { kind: "map", key, elem: this.typeExpr() };
    }
    if (this.is("struct")) {
      this.next();
      return { kind: "struct", fields: this.structFields() };
    }
    if (this.is("interface") || this.is("func") || this.is("chan")) {
      this.next();
      while (!this.is(";") && !this.is(")") && !this.is("}") && this.peek().type !== "string") {
        if (this.is("(") || this.is("{") || this.is("[")) this.skipGroup();
        else this.next();
      }
      return { kind: "other" };
    }
    if (tok.type === "ident") {
      const first = this.ident();
      if (this.is(".")) {
        this.next();
        return { kind: "named", pkg: first, name: this.ident(), file: this.base };
      }
      return { kind: "named", name: first };
    }
    throw this.error(tok, "expected a type");
  }

  structFields() {
    this.expect("{");
    const fields = [];
    while (!this.is("}")) {
      if (this.is(";")) {
        this.next();
        continue;
      }
      // Embedded: `T`, `*T`, `pkg.T` (then a tag, ";" or "}"); otherwise `a, b T`.
      const embedded = this.is("*") || this.is(".", 1) || this.is(";", 1) || this.is("}", 1) || this.peek(1)?.type === "string";
      const names = [];
      if (!embedded) {
        names.push(this.ident());
        while (this.is(",")) {
          this.next();
          names.push(this.ident());
        }
      }
      const type = this.typeExpr();
      const tag = this.peek().type === "string" ? this.next().value : "";
      if (embedded) fields.push({ type, tag });
      else for (const name of names) fields.push({ name, type, tag });
      this.endStatement();
    }
    this.expect("}");
    return fields;
  }

  valueExpr() {
    const parts = [this.operand()];
    while (this.is("+")) {
      this.next();
      parts.push(this.operand());
    }
    // anything else (arithmetic, iota expressions) is not a string constant
    if (!this.is(";") && !this.is(")") && !this.is(",")) {
      while (!this.is(";") && !this.is(")") && !this.is(",")) {
        if (this.is("(") || this.is("[") || this.is("{")) this.skipGroup();
        else this.next();
      }
      return { kind: "other" };
    }
    return parts.length === 1 ? parts[0] : { kind: "concat", parts };
  }

  operand() {
    const tok = this.peek();
    if (tok.type === "string") {
      this.next();
      return { kind: "string", value: tok.value };
    }
    if (tok.type === "ident") {
      const first = this.ident();
      let ref = { kind: "ref", name: first };
      if (this.is(".")) {
        this.next();
        ref = { kind: "ref", pkg: first, name: this.ident(), file: this.base };
      }
      if (this.is("(")) {
        this.next();
        const arg = this.valueExpr();
        this.expect(")");
        return { kind: "convert", type: { kind: "named", pkg: ref.pkg, name: ref.name, file: ref.file }, arg };
      }
      return ref;
    }
    if (this.is("(")) {
      this.next();
      const v = this.valueExpr();
      this.expect(")");
      return v;
    }
    this.next();
    return { kind: "other" };
  }
}

function parseFile(src, file, pkg) {
  const p = new Parser(tokenize(src, file), file);
  p.expect("package");
  const name = p.ident();
  p.endStatement();
  if (pkg.name && pkg.name !== name) throw new Error(`${file}: package ${name}, expected ${pkg.name}`);
  pkg.name = name;
  const imports = new Map();
  const importSpec = () => {
    let alias;
    if (p.peek().type === "ident" || p.is(".")) alias = p.next().text;
    const tok = p.next();
    if (tok.type !== "string") throw p.error(tok, "expected an import path");
    imports.set(alias ?? tok.value.slice(tok.value.lastIndexOf("/") + 1), tok.value);
    p.endStatement();
  };
  const typeSpec = (groupDoc) => {
    const nameTok = p.peek();
    const tname = p.ident();
    if (p.is("[") && p.peek(1)?.type === "ident" && p.peek(2)?.type === "ident") throw p.error(nameTok, "generic types are not supported");
    const alias = p.is("=");
    if (alias) p.next();
    const expr = p.typeExpr();
    const doc = nameTok.doc.length > 0 ? nameTok.doc : groupDoc;
    pkg.types.set(tname, { name: tname, alias, expr, tags: markersOf(doc) });
    p.endStatement();
  };
  let previousConst; // implicit repetition inside a const group
  const constSpec = () => {
    const names = [p.ident()];
    while (p.is(",")) {
      p.next();
      names.push(p.ident());
    }
    let type;
    let values = [];
    if (!p.is("=") && !p.is(";") && !p.is(")")) type = p.typeExpr();
    if (p.is("=")) {
      p.next();
      values.push(p.valueExpr());
      while (p.is(",")) {
        p.next();
        values.push(p.valueExpr());
      }
      previousConst = { type, values };
    } else if (previousConst) {
      ({ type, values } = previousConst);
    }
    names.forEach((n, k) => pkg.consts.set(n, { name: n, type, value: values[k] }));
    p.endStatement();
  };
  const group = (spec) => {
    const groupDoc = p.peek(-1)?.doc ?? [];
    if (p.is("(")) {
      p.next();
      while (!p.is(")")) {
        if (p.is(";")) p.next();
        else spec(groupDoc);
      }
      p.next();
      p.endStatement();
    } else spec(groupDoc);
  };
  while (p.peek()) {
    const tok = p.next();
    if (tok.text === ";") continue;
    if (tok.text === "import") group(importSpec);
    else if (tok.text === "type") group(typeSpec);
    else if (tok.text === "const") {
      previousConst = undefined;
      group(constSpec);
    } else if (tok.text === "var" || tok.text === "func") p.skipStatement();
    else throw p.error(tok, "unexpected top-level token");
  }
  return imports;
}

// Go's convention for marking a generated file (https://go.dev/s/generatedcode).
const GENERATED_CODE = /^\/\/ Code generated .* DO NOT EDIT\.$/m;

/** Reads the hand-written Go files of one package directory. */
export function readGoPackage(dir) {
  const pkg = { dir, name: "", importsByFile: new Map(), types: new Map(), consts: new Map() };
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".go") && !f.endsWith("_test.go"))
    .sort();
  for (const f of files) {
    const file = path.join(dir, f);
    const src = fs.readFileSync(file, "utf8");
    // Generated code (protobuf, deepcopy, docs) declares no API types or constants of its own.
    if (GENERATED_CODE.test(src)) continue;
    pkg.importsByFile.set(f, parseFile(src, file, pkg));
  }
  return pkg;
}
