// Label selectors: the string form (`?labelSelector=`) and metav1.LabelSelector objects, with the
// parsing rules, matching semantics and error texts of kubernetes/apimachinery 1.34
// (pkg/labels/selector.go, pkg/apis/meta/v1/helpers.go, pkg/apis/meta/v1/validation).

import { parseGoInt } from "./go-strconv.js";
import { aggregateMessage, forbidden, formatFieldError, invalid, isQualifiedName, isValidLabelValue, notSupported, required, validateLabelName, validateLabels, type FieldError } from "./validation.js";
import { goQuote } from "./go-quote.js";

/** Thrown for malformed label or field selectors; the HTTP layer maps it to 400 BadRequest. */
export class SelectorParseError extends Error {
  constructor(
    message: string,
    /** The field errors behind the message, when it came from requirement validation. */
    readonly fieldErrors: FieldError[] = [],
  ) {
    super(message);
    this.name = "SelectorParseError";
  }
}

/** upstream selection.Operator values. */
export type LabelOperator = "in" | "notin" | "=" | "==" | "!=" | "exists" | "!" | "gt" | "lt";

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** As given (for parsed selectors: sorted and de-duplicated, as upstream's string set). */
  values: string[];
}

const binaryOperators: readonly LabelOperator[] = ["in", "notin", "=", "==", "!=", "gt", "lt"];
const validOperators: readonly LabelOperator[] = [...binaryOperators, "exists", "!"];

function parseInt64(s: string): bigint | undefined {
  const parsed = parseGoInt(s);
  return parsed.ok ? parsed.value : undefined;
}

// Upstream field.Path rendering for the optional path a parse is given (nil → "<nil>").
function pathString(p: string | undefined): string {
  return p === undefined ? "<nil>" : p;
}
function pathChild(p: string | undefined, name: string): string {
  return p === undefined || p === "" ? name : `${p}.${name}`;
}

function labelKeyError(key: string, path: string): FieldError | undefined {
  const errs = isQualifiedName(key);
  return errs.length ? invalid(path, key, errs.join("; ")) : undefined;
}

/**
 * Upstream labels.NewRequirement: validates key, operator/value-count rules and values, and
 * throws a SelectorParseError carrying the aggregated field-error text.
 * `badValues` is what gets printed for value-count errors (Go prints a nil slice as `null`).
 */
function newRequirement(
  key: string,
  op: LabelOperator,
  vals: string[],
  path: string | undefined,
  badValues: unknown = vals,
): LabelRequirement {
  const errs: FieldError[] = [];
  const keyErr = labelKeyError(key, pathChild(path, "key"));
  if (keyErr) errs.push(keyErr);
  const valuePath = pathChild(path, "values");
  switch (op) {
    case "in":
    case "notin":
      if (vals.length === 0) {
        errs.push(invalid(valuePath, badValues, "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case "=":
    case "==":
    case "!=":
      if (vals.length !== 1) {
        errs.push(invalid(valuePath, badValues, "exact-match compatibility requires one single value"));
      }
      break;
    case "exists":
    case "!":
      if (vals.length !== 0) {
        errs.push(invalid(valuePath, badValues, "values set must be empty for exists and does not exist"));
      }
      break;
    case "gt":
    case "lt":
      if (vals.length !== 1) {
        errs.push(invalid(valuePath, badValues, "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      vals.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(invalid(`${valuePath}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      });
      break;
    default:
      errs.push(notSupported(pathChild(path, "operator"), op, validOperators));
  }
  vals.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length) errs.push(invalid(`${valuePath}[${i}][${key}]`, v, msgs.join("; ")));
  });
  if (errs.length) throw new SelectorParseError(aggregateMessage(errs), errs);
  return { key, operator: op, values: vals };
}

function requirementMatches(r: LabelRequirement, labels: Record<string, string> | undefined): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
  const val = has ? labels![r.key]! : undefined;
  switch (r.operator) {
    case "in":
    case "=":
    case "==":
      return has && r.values.includes(val!);
    case "notin":
    case "!=":
      return !has || !r.values.includes(val!);
    case "exists":
      return has;
    case "!":
      return !has;
    case "gt":
    case "lt": {
      if (!has) return false;
      const lv = parseInt64(val!);
      if (lv === undefined || r.values.length !== 1) return false;
      const rv = parseInt64(r.values[0]!);
      if (rv === undefined) return false;
      return r.operator === "gt" ? lv > rv : lv < rv;
    }
    default:
      return false;
  }
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

function requirementString(r: LabelRequirement): string {
  let s = r.operator === "!" ? "!" + r.key : r.key;
  switch (r.operator) {
    case "exists":
    case "!":
      return s;
    case "=":
    case "==":
    case "!=":
      s += r.operator;
      break;
    case "in":
    case "notin":
      s += ` ${r.operator} (`;
      break;
    case "gt":
      s += ">";
      break;
    case "lt":
      s += "<";
      break;
  }
  s += r.values.length === 1 ? r.values[0]! : [...r.values].sort(byteOrder).join(",");
  if (r.operator === "in" || r.operator === "notin") s += ")";
  return s;
}

export class LabelSelector {
  private readonly reqs: readonly LabelRequirement[];

  private constructor(
    reqs: readonly LabelRequirement[],
    private readonly nothing: boolean,
  ) {
    // sorted by key (stable) for a deterministic string form, as upstream
    this.reqs = [...reqs].sort((a, b) => byteOrder(a.key, b.key));
  }

  /** Matches every label set; isEmpty() is true. */
  static everything(): LabelSelector {
    return new LabelSelector([], false);
  }

  /** Matches nothing (upstream labels.Nothing(), e.g. a nil metav1.LabelSelector). */
  static nothing(): LabelSelector {
    return new LabelSelector([], true);
  }

  /** Built from already-validated requirements. */
  static fromRequirements(reqs: readonly LabelRequirement[]): LabelSelector {
    return new LabelSelector(reqs, false);
  }

  matches(labels: Record<string, string> | undefined): boolean {
    if (this.nothing) return false;
    return this.reqs.every((r) => requirementMatches(r, labels));
  }

  /** True when the selector does not restrict anything (false for nothing()). */
  isEmpty(): boolean {
    return !this.nothing && this.reqs.length === 0;
  }

  /** True only for the nothing() selector. */
  matchesNothing(): boolean {
    return this.nothing;
  }

  requirements(): LabelRequirement[] {
    return this.reqs.map((r) => ({ key: r.key, operator: r.operator, values: [...r.values] }));
  }

  /** Upstream RequiresExactMatch: value of the first `=`, `==` or single-valued `in` on `key`. */
  requiresExactMatch(key: string): string | undefined {
    for (const r of this.reqs) {
      if (r.key !== key) continue;
      if ((r.operator === "=" || r.operator === "==" || r.operator === "in") && r.values.length === 1) {
        return r.values[0];
      }
      return undefined;
    }
    return undefined;
  }

  toString(): string {
    return this.reqs.map(requirementString).join(",");
  }
}

// ---------------------------------------------------------------------------------------------
// Lexer / parser for the string form.

enum Tok {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const literalTokens: ReadonlyMap<string, Tok> = new Map([
  [")", Tok.ClosedPar],
  [",", Tok.Comma],
  ["!", Tok.DoesNotExist],
  ["==", Tok.DoubleEquals],
  ["=", Tok.Equals],
  [">", Tok.GreaterThan],
  ["in", Tok.In],
  ["<", Tok.LessThan],
  ["!=", Tok.NotEquals],
  ["notin", Tok.NotIn],
  ["(", Tok.OpenPar],
]);

interface Item {
  tok: Tok;
  lit: string;
}

const isWhitespace = (c: string) => c === " " || c === "\t" || c === "\r" || c === "\n";
const isSpecial = (c: string) =>
  c === "=" || c === "!" || c === "(" || c === ")" || c === "," || c === ">" || c === "<";
const NUL = "\0";

/** Tokenizes like upstream's byte lexer; a NUL character reads as end of input. */
function scan(s: string): Item[] {
  let pos = 0;
  const read = (): string => (pos < s.length ? s[pos++]! : NUL);
  const unread = () => {
    pos--;
  };
  const items: Item[] = [];
  for (;;) {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    let item: Item;
    if (ch === NUL) {
      item = { tok: Tok.EndOfString, lit: "" };
    } else if (isSpecial(ch)) {
      unread();
      let buf = "";
      let last: Item | undefined;
      for (;;) {
        const c = read();
        if (c === NUL) break;
        if (isSpecial(c)) {
          buf += c;
          const t = literalTokens.get(buf);
          if (t !== undefined) {
            last = { tok: t, lit: buf };
          } else if (last) {
            unread();
            break;
          }
        } else {
          unread();
          break;
        }
      }
      item = last ?? { tok: Tok.Error, lit: `error expected: keyword found '${buf}'` };
    } else {
      unread();
      let buf = "";
      for (;;) {
        const c = read();
        if (c === NUL) break;
        if (isSpecial(c) || isWhitespace(c)) {
          unread();
          break;
        }
        buf += c;
      }
      item = { tok: literalTokens.get(buf) ?? Tok.Identifier, lit: buf };
    }
    items.push(item);
    if (item.tok === Tok.EndOfString) return items;
  }
}

type Ctx = "keyAndOperator" | "values";

class Parser {
  private pos = 0;
  constructor(
    private readonly items: Item[],
    private readonly path: string | undefined,
  ) {}

  private at(i: number, ctx: Ctx): Item {
    const it = this.items[Math.min(i, this.items.length - 1)]!;
    if (ctx === "values" && (it.tok === Tok.In || it.tok === Tok.NotIn)) return { tok: Tok.Identifier, lit: it.lit };
    return it;
  }
  private lookahead(ctx: Ctx): Item {
    return this.at(this.pos, ctx);
  }
  private consume(ctx: Ctx): Item {
    return this.at(this.pos++, ctx);
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead("values");
      if (tok === Tok.Identifier || tok === Tok.DoesNotExist) {
        let r: LabelRequirement;
        try {
          r = this.parseRequirement();
        } catch (e) {
          if (e instanceof SelectorParseError) {
            throw new SelectorParseError(`unable to parse requirement: ${e.message}`, e.fieldErrors);
          }
          throw e;
        }
        reqs.push(r);
        const t = this.consume("values");
        if (t.tok === Tok.EndOfString) return reqs;
        if (t.tok === Tok.Comma) {
          const t2 = this.lookahead("values");
          if (t2.tok !== Tok.Identifier && t2.tok !== Tok.DoesNotExist) {
            throw new SelectorParseError(`found '${t2.lit}', expected: identifier after ','`);
          }
        } else {
          throw new SelectorParseError(`found '${t.lit}', expected: ',' or 'end of string'`);
        }
      } else if (tok === Tok.EndOfString) {
        return reqs;
      } else {
        throw new SelectorParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    const [key, inferred] = this.parseKeyAndInferOperator();
    if (inferred === "exists" || inferred === "!") return newRequirement(key, inferred, [], this.path);
    const op = this.parseOperator();
    const values = op === "in" || op === "notin" ? this.parseValues() : this.parseExactValue();
    // upstream collects values in a string set and passes its sorted list
    const list = [...values].sort(byteOrder);
    return newRequirement(key, op, list, this.path);
  }

  private parseKeyAndInferOperator(): [string, LabelOperator | undefined] {
    let op: LabelOperator | undefined;
    let it = this.consume("values");
    if (it.tok === Tok.DoesNotExist) {
      op = "!";
      it = this.consume("values");
    }
    if (it.tok !== Tok.Identifier) throw new SelectorParseError(`found '${it.lit}', expected: identifier`);
    const keyErr = labelKeyError(it.lit, pathString(this.path));
    if (keyErr) throw new SelectorParseError(formatFieldError(keyErr), [keyErr]);
    const next = this.lookahead("values").tok;
    if ((next === Tok.EndOfString || next === Tok.Comma) && op !== "!") op = "exists";
    return [it.lit, op];
  }

  private parseOperator(): LabelOperator {
    const { tok, lit } = this.consume("keyAndOperator");
    switch (tok) {
      case Tok.In:
        return "in";
      case Tok.Equals:
        return "=";
      case Tok.DoubleEquals:
        return "==";
      case Tok.GreaterThan:
        return "gt";
      case Tok.LessThan:
        return "lt";
      case Tok.NotIn:
        return "notin";
      case Tok.NotEquals:
        return "!=";
      default:
        throw new SelectorParseError(`found '${lit}', expected: ${binaryOperators.join(", ")}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume("values");
    if (open.tok !== Tok.OpenPar) throw new SelectorParseError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead("values");
    if (tok === Tok.Identifier || tok === Tok.Comma) {
      const s = this.parseIdentifiersList();
      if (this.consume("values").tok !== Tok.ClosedPar) {
        throw new SelectorParseError(`found '${lit}', expected: ')'`);
      }
      return s;
    }
    if (tok === Tok.ClosedPar) {
      this.consume("values");
      return new Set([""]);
    }
    throw new SelectorParseError(`found '${lit}', expected: ',', ')' or identifier`);
  }

  // Release-1.34 behaviour: on ",," the second comma is consumed here, so "(a,,)" and "(,,)"
  // are rejected while "(a,,b)" is accepted.
  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume("values");
      if (tok === Tok.Identifier) {
        s.add(lit);
        const next = this.lookahead("values");
        if (next.tok === Tok.Comma) continue;
        if (next.tok === Tok.ClosedPar) return s;
        throw new SelectorParseError(`found '${next.lit}', expected: ',' or ')'`);
      } else if (tok === Tok.Comma) {
        if (s.size === 0) s.add("");
        const next = this.lookahead("values").tok;
        if (next === Tok.ClosedPar) {
          s.add("");
          return s;
        }
        if (next === Tok.Comma) {
          this.consume("values");
          s.add("");
        }
      } else {
        throw new SelectorParseError(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const next = this.lookahead("values").tok;
    if (next === Tok.EndOfString || next === Tok.Comma) return new Set([""]);
    const { tok, lit } = this.consume("values");
    if (tok === Tok.Identifier) return new Set([lit]);
    throw new SelectorParseError(`found '${lit}', expected: identifier`);
  }
}

/**
 * Parses the string form of a label selector (upstream labels.Parse). Empty or blank input gives
 * an empty selector that matches everything. `path` is upstream's optional field path for error
 * texts; without it key errors are reported at `<nil>` exactly as the API server does.
 */
export function parseLabelSelector(s: string, opts: { path?: string } = {}): LabelSelector {
  const reqs = new Parser(scan(s), opts.path).parse();
  return LabelSelector.fromRequirements(reqs);
}

// ---------------------------------------------------------------------------------------------
// metav1.LabelSelector

export interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[] | null;
}

export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirementObject[] | null;
}

/**
 * Converts a metav1.LabelSelector (upstream metav1.LabelSelectorAsSelector): null/undefined →
 * nothing(), no labels and no expressions → everything(). Unknown operators throw
 * `"<op>" is not a valid label selector operator`; invalid keys/values/value counts throw the
 * upstream requirement error text.
 */
export function labelSelectorFromObject(sel: LabelSelectorObject | null | undefined): LabelSelector {
  if (sel === null || sel === undefined) return LabelSelector.nothing();
  const matchLabels = sel.matchLabels ?? {};
  const exprs = sel.matchExpressions ?? [];
  const keys = Object.keys(matchLabels).sort(byteOrder);
  if (keys.length + exprs.length === 0) return LabelSelector.everything();
  const reqs: LabelRequirement[] = [];
  for (const k of keys) reqs.push(newRequirement(k, "=", [matchLabels[k] ?? ""], undefined));
  for (const e of exprs) {
    let op: LabelOperator;
    switch (e.operator) {
      case "In":
        op = "in";
        break;
      case "NotIn":
        op = "notin";
        break;
      case "Exists":
        op = "exists";
        break;
      case "DoesNotExist":
        op = "!";
        break;
      default:
        throw new SelectorParseError(`${goQuote(String(e.operator ?? ""))} is not a valid label selector operator`);
    }
    const vals = [...(e.values ?? [])];
    // Go copies the values into a nil slice, which prints as null when empty
    reqs.push(newRequirement(e.key, op, vals, undefined, vals.length === 0 ? null : vals));
  }
  return LabelSelector.fromRequirements(reqs);
}

export interface LabelSelectorValidationOptions {
  /** Skip label-value checks in matchExpressions (backwards compatibility with stored data). */
  allowInvalidLabelValueInSelector?: boolean;
  /** Let unknown operators pass (as SubjectAccessReview does). */
  allowUnknownOperatorInRequirement?: boolean;
}

/**
 * Upstream metav1 validation.ValidateLabelSelector: field errors for a metav1.LabelSelector in an
 * object (e.g. `spec.selector`).
 */
export function validateLabelSelector(
  sel: LabelSelectorObject | null | undefined,
  fieldPath: string,
  opts: LabelSelectorValidationOptions = {},
): FieldError[] {
  const errs: FieldError[] = [];
  if (!sel) return errs;
  errs.push(...validateLabels(sel.matchLabels ?? undefined, pathChild(fieldPath, "matchLabels")));
  (sel.matchExpressions ?? []).forEach((e, i) => {
    const p = `${pathChild(fieldPath, "matchExpressions")}[${i}]`;
    const values = e.values ?? [];
    switch (e.operator) {
      case "In":
      case "NotIn":
        if (values.length === 0) {
          errs.push(required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        }
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length > 0) {
          errs.push(forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        }
        break;
      default:
        if (!opts.allowUnknownOperatorInRequirement) {
          errs.push(invalid(`${p}.operator`, e.operator, "not a valid selector operator"));
        }
    }
    errs.push(...validateLabelName(e.key, `${p}.key`));
    if (!opts.allowInvalidLabelValueInSelector) {
      values.forEach((v, j) => {
        for (const msg of isValidLabelValue(v)) errs.push(invalid(`${p}.values[${j}]`, v, msg));
      });
    }
  });
  return errs;
}
