// The AST validators Kubernetes adds to every CEL environment, run after a clean type check as
// cel-go runs them: homogeneous aggregate literals (cel.HomogeneousAggregateLiterals), and
// duration / timestamp / regex literal validation (cel.ValidateDurationLiterals, …).
import type { Expr, ParsedExpr } from "../ast.js";
import type { CelIssue } from "../source.js";
import type { CelType } from "../types.js";
import { compileRegex } from "../regex.js";
import { validateFormatCall } from "../library/strings-format.js";
import { runtimeTypeName } from "../stdlib/values.js";
import type { CheckerEnv } from "./index.js";
import { formatCheckerType, isExactType } from "./types.js";

export function runValidators(
  root: Expr,
  types: ReadonlyMap<number, CelType>,
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
  // ext.Strings (version ≥ 1) adds cel-go's string-format validator: a constant format string
  // applied to a list literal is checked against the literal's element types.
  const formatValidator = env.functions.get("format")?.overloads.some((o) => o.id === "string_format") ?? false;

  const walk = (e: Expr, exempted: boolean): void => {
    switch (e.kind) {
      case "const":
      case "ident":
        return;
      case "select":
        return walk(e.operand, exempted);
      case "call": {
        if (env.validateLiterals) validateLiteralCall(e, env, at);
        if (formatValidator) validateFormat(e, typeOf, at);
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

/** cel-go's stringFormatValidator: `'<constant>'.format([<list literal>])`. */
function validateFormat(e: Expr & { kind: "call" }, typeOf: (e: Expr) => CelType, at: (id: number, message: string) => void): void {
  if (e.fn !== "format" || !e.target || e.target.kind !== "const" || typeof e.target.value !== "string") return;
  const list = e.args.length === 1 ? e.args[0]! : undefined;
  if (!list || list.kind !== "list") return;
  const problem = validateFormatCall(e.target.value, list.elements.map(typeOf), runtimeTypeName);
  if (!problem) return;
  at(problem.argIndex === undefined ? e.id : list.elements[problem.argIndex]!.id, problem.message);
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
