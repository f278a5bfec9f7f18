// The AST validators Kubernetes adds to every CEL environment, run after a clean type check as
// cel-go runs them: homogeneous aggregate literals (cel.HomogeneousAggregateLiterals), duration /
// timestamp / regex literal validation (cel.ValidateDurationLiterals, …), and ext strings'
// validation of `'<constant>'.format([<list literal>])` (its stringFormatValidator, for
// environments whose libraries declare `string_format`).
//
// Also the check cel-go makes when the program is created rather than at compile time: Kubernetes'
// regex library compiles a constant pattern of `find` / `findAll` then (cel.OptimizeRegex), and a
// bad one fails program creation with RE2's message (`error parsing regexp: …`), which Kubernetes
// reports as "program instantiation failed: <message>".
import type { Expr, ParsedExpr } from "../ast.js";
import type { CelIssue } from "../source.js";
import { formatType, type CelType } from "../types.js";
import { compileRegex } from "../regex.js";
import { validateFormatArgs } from "../library/strings-format.js";
import type { CheckerEnv } from "./index.js";
import { formatCheckerType, isExactType } from "./types.js";

export function runValidators(
  root: Expr,
  types: ReadonlyMap<number, CelType>,
  overloads: ReadonlyMap<number, readonly string[]>,
  parsed: ParsedExpr,
  env: CheckerEnv,
  issues: CelIssue[],
): void {
  const at = (id: number, message: string) => issues.push({ offset: parsed.positions.get(id) ?? 0, message });
  const typeOf = (e: Expr): CelType => types.get(e.id)!;
  const mismatch = (id: number, expected: CelType, actual: CelType) =>
    at(id, `expected type '${formatCheckerType(expected)}' but found '${formatCheckerType(actual)}'`);
  const unwrap = (t: CelType): CelType => (t.kind === "optional" ? t.of : t);
  const exempt = new Set(env.homogeneousExemptFunctions);

  const walk = (e: Expr, exempted: boolean): void => {
    switch (e.kind) {
      case "const":
      case "ident":
        return;
      case "select":
        return walk(e.operand, exempted);
      case "call": {
        if (env.validateLiterals) validateLiteralCall(e, env, at);
        if (e.fn === "format") validateFormat(e, typeOf, overloads, at);
        const inner = exempted || exempt.has(e.fn);
        if (e.target) walk(e.target, inner);
        for (const a of e.args) walk(a, inner);
        return;
      }
      case "list": {
        if (env.homogeneousAggregateLiterals && !exempted) {
          let elemType: CelType | undefined;
          const optional = new Set(e.optionalIndices);
          for (let i = 0; i < e.elements.length; i++) {
            const el = e.elements[i]!;
            const t = optional.has(i) ? unwrap(typeOf(el)) : typeOf(el);
            if (elemType === undefined) elemType = t;
            else if (!isExactType(elemType, t, false)) {
              mismatch(el.id, elemType, t);
              break;
            }
          }
        }
        for (const el of e.elements) walk(el, exempted);
        return;
      }
      case "map": {
        if (env.homogeneousAggregateLiterals && !exempted) {
          let keyType: CelType | undefined;
          let valueType: CelType | undefined;
          for (const entry of e.entries) {
            const kt = typeOf(entry.key);
            const vt = entry.optional ? unwrap(typeOf(entry.value)) : typeOf(entry.value);
            if (keyType === undefined || valueType === undefined) {
              keyType = kt;
              valueType = vt;
              continue;
            }
            if (!isExactType(keyType, kt, false)) mismatch(entry.key.id, keyType, kt);
            if (!isExactType(valueType, vt, false)) mismatch(entry.value.id, valueType, vt);
          }
        }
        for (const entry of e.entries) {
          walk(entry.key, exempted);
          walk(entry.value, exempted);
        }
        return;
      }
      case "struct":
        for (const f of e.fields) walk(f.value, exempted);
        return;
      case "comprehension":
        walk(e.iterRange, exempted);
        walk(e.accuInit, exempted);
        walk(e.loopCondition, exempted);
        walk(e.loopStep, exempted);
        walk(e.result, exempted);
        return;
    }
  };
  walk(root, false);
}

/**
 * `duration('…')`, `timestamp('…')` with a literal that does not convert, and `matches` with a
 * literal pattern that does not compile: "invalid <function> argument". As cel-go, the literal
 * checked is the first argument after the receiver.
 */
function validateLiteralCall(
  e: Expr & { kind: "call" },
  env: CheckerEnv,
  at: (id: number, message: string) => void,
): void {
  const arg = e.args[0];
  if (!arg || arg.kind !== "const" || typeof arg.value !== "string") return;
  if (e.fn === "matches") {
    try {
      compileRegex(arg.value);
    } catch {
      at(arg.id, "invalid matches argument");
    }
    return;
  }
  if ((e.fn !== "duration" && e.fn !== "timestamp") || e.target) return;
  const fn = env.functions.get(e.fn);
  const o = fn?.overloads.find((o) => !o.member && o.params.length === 1 && o.params[0]!.kind === "string" && o.impl);
  if (!o) return;
  try {
    o.impl!([arg.value], { services: {} });
  } catch {
    at(arg.id, `invalid ${e.fn} argument`);
  }
}

/** cel-go's Type.TypeName(): the kind's name without type parameters. */
function typeName(t: CelType): string {
  switch (t.kind) {
    case "list":
      return "list";
    case "map":
      return "map";
    case "optional":
      return "optional_type";
    case "type":
      return "type";
    case "opaque":
      return t.name;
    default:
      return formatType(t);
  }
}

const formatView = (typeOf: (e: Expr) => CelType) => ({
  typeOf,
  typeName,
  literalChildren: (e: Expr): readonly Expr[] | undefined => {
    if (e.kind === "list") return e.elements;
    if (e.kind === "map") return e.entries.flatMap((en) => [en.key, en.value]);
    return undefined;
  },
});

/**
 * ext strings' stringFormatValidator: a member `format` call on a string literal with one list
 * literal argument, resolved to `string_format`. Clause and arity problems are reported at the
 * call; an argument of the wrong type at that argument (or at the element of a literal argument
 * that %s cannot print).
 */
function validateFormat(
  e: Expr & { kind: "call" },
  typeOf: (e: Expr) => CelType,
  overloads: ReadonlyMap<number, readonly string[]>,
  at: (id: number, message: string) => void,
): void {
  if (!overloads.get(e.id)?.includes("string_format")) return;
  const target = e.target;
  if (!target || target.kind !== "const" || typeof target.value !== "string") return;
  const list = e.args.length === 1 ? e.args[0]! : undefined;
  if (!list || list.kind !== "list") return;
  const r = validateFormatArgs(target.value, list.elements, formatView(typeOf));
  if (r) at(r.arg?.id ?? e.id, r.message);
}

/** The overloads of Kubernetes' regex library whose constant pattern is compiled with the program. */
const regexOverloads = new Set(["string_find_string", "string_find_all_string", "string_find_all_string_int"]);

/**
 * The first constant `find` / `findAll` pattern that does not compile, in cel-go's planning order
 * (operands before the call, left to right): RE2's message, which cel-go returns from creating the
 * program. Undefined when every constant pattern compiles.
 */
export function regexProgramError(root: Expr, overloads: ReadonlyMap<number, readonly string[]>): string | undefined {
  const visit = (e: Expr): string | undefined => {
    switch (e.kind) {
      case "const":
      case "ident":
        return undefined;
      case "select":
        return visit(e.operand);
      case "call": {
        if (e.target) {
          const r = visit(e.target);
          if (r !== undefined) return r;
        }
        for (const a of e.args) {
          const r = visit(a);
          if (r !== undefined) return r;
        }
        const pattern = e.args[0];
        if (pattern?.kind === "const" && typeof pattern.value === "string" && overloads.get(e.id)?.some((o) => regexOverloads.has(o))) {
          try {
            compileRegex(pattern.value);
          } catch (err) {
            return (err as Error).message;
          }
        }
        return undefined;
      }
      case "list":
        for (const el of e.elements) {
          const r = visit(el);
          if (r !== undefined) return r;
        }
        return undefined;
      case "map":
        for (const en of e.entries) {
          const r = visit(en.key) ?? visit(en.value);
          if (r !== undefined) return r;
        }
        return undefined;
      case "struct":
        for (const f of e.fields) {
          const r = visit(f.value);
          if (r !== undefined) return r;
        }
        return undefined;
      case "comprehension":
        return visit(e.iterRange) ?? visit(e.accuInit) ?? visit(e.loopCondition) ?? visit(e.loopStep) ?? visit(e.result);
    }
  };
  return visit(root);
}
