// The CEL engine behind one small interface: compile an expression for an environment (the
// variables it may read), then evaluate the program with values for them. Programs are cached
// by environment and expression, so a rule is parsed and planned once. The engine is
// @bufbuild/cel (chosen on cel-spec conformance: docs/cel-engines.md); nothing outside src/cel
// imports it, so it can be swapped.
import { celEnv, isCelError, parse, plan, type CelInput, type CelResult } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import { freeReferences } from "./references.js";
import { listsLibrary } from "./library/lists.js";

/** The variables an expression may read (self, oldSelf, object, request, claims, …). */
export interface CelEnvironment {
  readonly name: string;
  readonly variables: readonly string[];
}

export interface CelProgram {
  readonly expression: string;
  /** Evaluates with values for the environment's variables; a CEL runtime error throws CelEvalError. */
  eval(vars: Readonly<Record<string, CelInput>>): unknown;
}

/** The expression does not compile; `message` names the position as upstream's do (`<input>:1:8: …`). */
export class CelCompileError extends Error {}

/** Evaluation failed (no such overload, division by zero, overflow, missing field, …). */
export class CelEvalError extends Error {}

const engineEnv = celEnv({ funcs: [...strings, ...listsLibrary] });
// Keyed by the environment object itself: two environments that share a name but not their
// variables must not share programs.
const cache = new WeakMap<CelEnvironment, Map<string, CelProgram>>();
const maxCachedPerEnvironment = 10_000;

export function compileCel(expression: string, env: CelEnvironment): CelProgram {
  let programs = cache.get(env);
  if (!programs) cache.set(env, (programs = new Map()));
  let program = programs.get(expression);
  if (!program) {
    program = compileUncached(expression, env);
    if (programs.size >= maxCachedPerEnvironment) programs.delete(programs.keys().next().value as string);
    programs.set(expression, program);
  }
  return program;
}

function compileUncached(expression: string, env: CelEnvironment): CelProgram {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(expression);
  } catch (e) {
    throw compileError(expression, (e as Error).message);
  }
  const declared = new Set(env.variables);
  const undeclared = freeReferences(parsed).find((r) => !declared.has(r.name));
  if (undeclared) {
    const { line, column } = lineAndColumn(expression, undeclared.offset);
    throw compileError(expression, `<input>:${line}:${column}: undeclared reference to '${undeclared.name}' (in container '')`);
  }
  const planned = plan(engineEnv, parsed) as (ctx: Record<string, CelInput>) => CelResult;
  return {
    expression,
    eval(vars) {
      const result = planned(vars as Record<string, CelInput>);
      if (isCelError(result)) throw new CelEvalError(result.message);
      return result;
    },
  };
}

function compileError(expression: string, message: string): CelCompileError {
  return new CelCompileError(`ERROR: ${message}\n | ${expression}\n | ${caret(expression, message)}`);
}

function lineAndColumn(expression: string, offset: number): { line: number; column: number } {
  const before = expression.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

/** A `....^` line under the column the parser named (`<input>:line:column: …`). */
function caret(expression: string, message: string): string {
  const m = /<input>:(\d+):(\d+)/.exec(message);
  if (!m) return "";
  const line = Number(m[1]);
  const column = Number(m[2]) - 1;
  const text = expression.split("\n")[line - 1] ?? "";
  return ".".repeat(Math.max(0, Math.min(column, text.length))) + "^";
}
