// A validation rule's `fieldPath` checked against the schema node it is declared on (upstream
// cel.ValidFieldPath: `.a.b`, `.a['b.c']`, `.map['key']`, no list indexes), and the rule printed
// the way upstream's field errors print an internal ValidationRule (Go's %#v).
import { GoSyntaxValue } from "../apimachinery/validation.js";
import { goQuote } from "../apimachinery/go-quote.js";
import type { StructuralSchema } from "../cel/schema/index.js";

/** Tokens of a JSON path: the delimiters `.`, `[`, `]` alone, quoted strings whole, text between. */
function tokenize(path: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i]!;
    if (c === "'") {
      // A quoted string runs to the next quote not preceded by a backslash (or to the end).
      let j = i + 1;
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== "\\")) j++;
      tokens.push(path.slice(i, Math.min(j + 1, path.length)));
      i = j + 1;
      continue;
    }
    if (c === "." || c === "[" || c === "]") {
      tokens.push(c);
      i++;
      continue;
    }
    let j = i;
    while (j < path.length && path[j] !== "." && path[j] !== "[" && path[j] !== "]") j++;
    tokens.push(path.slice(i, j));
    i = j;
  }
  return tokens;
}

const escapes: Record<string, string> = { a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "'": "'", "\\": "\\" };

function unescapeSingleQuote(s: string): { value?: string; error?: string } {
  let error: string | undefined;
  const value = s.replace(/\\[\s\S]/g, (m) => {
    const r = escapes[m[1]!];
    if (r === undefined) {
      error = `invalid escape char ${m}`;
      return "";
    }
    return r;
  });
  return error !== undefined ? { error } : { value };
}

/**
 * The field path `jsonPath` names below `schema` (`spec.x[key]`, as upstream's field.Path prints
 * it), or upstream's reason it is not valid (`does not refer to a valid field`, …).
 */
export function validFieldPath(jsonPath: string, schema: StructuralSchema): { path?: string; schema?: StructuralSchema; error?: string } {
  const tokens = tokenize(jsonPath);
  let path: string | undefined;
  let cur: StructuralSchema | undefined = schema;
  const append = (name: string, named: boolean): string | undefined => {
    if (!named) {
      path = `${path ?? ""}[${name}]`;
      const ap: unknown = cur?.additionalProperties;
      cur = typeof ap === "object" && ap !== null ? (ap as StructuralSchema) : undefined;
      return undefined;
    }
    path = path === undefined ? name : `${path}.${name}`;
    const next: StructuralSchema | undefined = cur?.properties && Object.hasOwn(cur.properties, name) ? cur.properties[name] : undefined;
    if (!next) return "does not refer to a valid field";
    cur = next;
    return undefined;
  };
  const namedOrKey = (): boolean | undefined => {
    if (cur?.properties !== undefined) return true;
    if (cur?.additionalProperties !== undefined && cur.additionalProperties !== false) return false;
    return undefined;
  };
  let i = 0;
  while (i < tokens.length) {
    const tok = tokens[i++]!;
    if (tok === "[") {
      if (i >= tokens.length) return { error: "unexpected end of JSON path" };
      const q = tokens[i++]!;
      if (q.length < 2 || q[0] !== "'" || q[q.length - 1] !== "'") return { error: `expected single quoted string but got ${q}` };
      const u = unescapeSingleQuote(q.slice(1, -1));
      if (u.error !== undefined) return { error: `invalid string literal: ${u.error}` };
      const named = namedOrKey();
      if (named === undefined) return { error: "does not refer to a valid field" };
      const err = append(u.value!, named);
      if (err) return { error: err };
      if (i >= tokens.length) return { error: "unexpected end of JSON path" };
      const close = tokens[i++]!;
      if (close !== "]") return { error: `expected ] but got ${close}` };
    } else if (tok === ".") {
      if (i >= tokens.length) return { error: "unexpected end of JSON path" };
      const name = tokens[i++]!;
      const named = namedOrKey();
      if (named === undefined) return { error: "does not refer to a valid field" };
      const err = append(name, named);
      if (err) return { error: err };
    } else {
      return { error: `expected [ or . but got: ${tok}` };
    }
  }
  return { path, schema: cur };
}

/** A ValidationRule as upstream's field errors show the internal struct (`%#v`). */
export function goStringOfRule(rule: {
  readonly rule?: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
  readonly optionalOldSelf?: boolean;
}): GoSyntaxValue {
  const ptr = (type: string, set: boolean): string => `(${type})(${set ? "0xc000000000" : "nil"})`;
  return new GoSyntaxValue(
    `apiextensions.ValidationRule{Rule:${goQuote(rule.rule ?? "")}, Message:${goQuote(rule.message ?? "")}, ` +
      `MessageExpression:${goQuote(rule.messageExpression ?? "")}, ` +
      `Reason:${ptr("*apiextensions.FieldValueErrorReason", rule.reason !== undefined && rule.reason !== null)}, ` +
      `FieldPath:${goQuote(rule.fieldPath ?? "")}, OptionalOldSelf:${ptr("*bool", rule.optionalOldSelf !== undefined && rule.optionalOldSelf !== null)}}`,
  );
}
