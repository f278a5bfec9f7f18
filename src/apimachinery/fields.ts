// Field selectors (`?fieldSelector=`), with the parsing rules, escaping and error texts of
// kubernetes/apimachinery 1.34 pkg/fields/selector.go.

import { SelectorParseError } from "./labels.js";

export { SelectorParseError };

export type FieldOperator = "=" | "!=";

export interface FieldRequirement {
  field: string;
  /** `=` and `==` both parse to "=" (upstream selection.Equals); `!=` is selection.NotEquals. */
  operator: FieldOperator;
  value: string;
}

/** Escapes `\`, `,` and `=` in a literal value for use in a field selector. */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => "\\" + c);
}

/** Reverses escapeFieldValue; throws SelectorParseError with upstream's texts on bad input. */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = "";
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === "\\" || c === "," || c === "=") {
        out += c;
      } else {
        throw new SelectorParseError(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      inSlash = false;
      continue;
    }
    if (c === "\\") {
      inSlash = true;
    } else if (c === "," || c === "=") {
      // upstream prints the rune with %v, i.e. as its code point number
      throw new SelectorParseError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw new SelectorParseError("invalid field selector: invalid escape sequence: \\");
  return out;
}

/** The message upstream's field-label conversion functions give for an unsupported field. */
export function unsupportedFieldError(field: string): string {
  return `field label not supported: ${field}`;
}

export class FieldSelector {
  private constructor(private readonly reqs: readonly FieldRequirement[]) {}

  static everything(): FieldSelector {
    return new FieldSelector([]);
  }

  static fromRequirements(reqs: readonly FieldRequirement[]): FieldSelector {
    return new FieldSelector(reqs.map((r) => ({ ...r })));
  }

  /** A missing field compares as the empty string, as upstream's fields.Set.Get does. */
  matches(fields: Record<string, string>): boolean {
    return this.reqs.every((r) => {
      const v = Object.prototype.hasOwnProperty.call(fields, r.field) ? (fields[r.field] ?? "") : "";
      return r.operator === "=" ? v === r.value : v !== r.value;
    });
  }

  isEmpty(): boolean {
    return this.reqs.length === 0;
  }

  requirements(): FieldRequirement[] {
    return this.reqs.map((r) => ({ ...r }));
  }

  /** Value of the first `field=value` term on `field`, if any (upstream RequiresExactMatch). */
  requiresExactMatch(field: string): string | undefined {
    return this.reqs.find((r) => r.field === field && r.operator === "=")?.value;
  }

  toString(): string {
    return this.reqs.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(",");
  }
}

// Comma-separated terms; a backslash-escaped comma stays inside its term (backslash kept).
function splitTerms(s: string): string[] {
  if (s.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === "\\") inSlash = true;
    else if (c === ",") {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

const termOperators = ["!=", "==", "="] as const;

// Splits at the first position where an operator starts (`!=` and `==` win over `=`).
function splitTerm(term: string): [string, (typeof termOperators)[number], string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/**
 * Parses a field selector (upstream fields.ParseSelector). Terms are sorted (as raw text), empty
 * terms skipped, no whitespace trimming; a term whose field and value are both empty (`=`) drops out.
 */
export function parseFieldSelector(selector: string): FieldSelector {
  const parts = splitTerms(selector).sort(byteOrder);
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === "") continue;
    const split = splitTerm(part);
    if (!split) throw new SelectorParseError(`invalid selector: '${selector}'; can't understand '${part}'`);
    const [field, op, rhs] = split;
    const value = unescapeFieldValue(rhs);
    if (field === "" && value === "") continue;
    reqs.push({ field, operator: op === "!=" ? "!=" : "=", value });
  }
  return FieldSelector.fromRequirements(reqs);
}
