// Helpers for the end-to-end library tests (*.e2e.test.ts): compile real expression text with
// compileCel in an environment, evaluate it, and compare with a value, a compile error or a
// runtime error message.
import { expect, it } from "vitest";
import { compileCel, CelCompileError, type CelBudget, type CelEnvironment } from "../program.js";
import { celEquals } from "../stdlib/index.js";
import { celLiteral } from "../convert.js";
import type { CelType } from "../types.js";
import { CelEvalError, type CelValue } from "../value.js";

/** The evaluation must fail with exactly this CelEvalError message. */
export class EvalErr {
  constructor(readonly message: string) {}
}
/** Compiling must fail; CelCompileError.message must contain this text (or match the pattern). */
export class CompileErr {
  constructor(readonly message: string | RegExp) {}
}
export const evalErr = (message: string) => new EvalErr(message);
export const compileErr = (message: string | RegExp) => new CompileErr(message);

export type Expectation = CelValue | EvalErr | CompileErr;
/** [expression, expected] — expected a value (compared with CEL equality), or an error. */
export type Case = readonly [string, Expectation];

const envCache = new Map<string, CelEnvironment>();

/** An environment with these typed variables (cached so programs are shared across cases). */
export function testEnv(variables: Record<string, CelType> = {}): CelEnvironment {
  const key = JSON.stringify(variables, (_k, v: unknown) => (v instanceof Map ? [...v.entries()] : v));
  let env = envCache.get(key);
  if (!env) envCache.set(key, (env = { name: "test", variables }));
  return env;
}

export function evaluate(expr: string, env: CelEnvironment = testEnv(), vars: Record<string, CelValue> = {}, budget?: CelBudget): CelValue {
  return compileCel(expr, env).eval(vars, budget).value;
}

function show(v: CelValue): string {
  try {
    return celLiteral(v);
  } catch {
    return String(v);
  }
}

export function check(expr: string, want: Expectation, env: CelEnvironment = testEnv(), vars: Record<string, CelValue> = {}, budget?: CelBudget): void {
  if (want instanceof CompileErr) {
    let err: unknown;
    try {
      compileCel(expr, env);
    } catch (e) {
      err = e;
    }
    expect(err, `${expr} should not compile`).toBeInstanceOf(CelCompileError);
    const msg = (err as Error).message;
    if (typeof want.message === "string") expect(msg).toContain(want.message);
    else expect(msg).toMatch(want.message);
    return;
  }
  const program = compileCel(expr, env);
  if (want instanceof EvalErr) {
    let err: unknown;
    let got: CelValue | undefined;
    try {
      got = program.eval(vars, budget).value;
    } catch (e) {
      err = e;
    }
    expect(err, `${expr} should fail, got ${got === undefined ? "" : show(got)}`).toBeInstanceOf(CelEvalError);
    expect((err as Error).message).toBe(want.message);
    return;
  }
  const got = program.eval(vars, budget).value;
  const same = celEquals(got, want);
  expect(same, `${expr}: got ${show(got)}, want ${show(want)}`).toBe(true);
}

/** One vitest case per row. */
export function table(cases: readonly Case[], env?: CelEnvironment, vars?: Record<string, CelValue>, budget?: CelBudget): void {
  it.each(cases.map(([e, w]) => ({ e, w })))("$e", ({ e, w }) => check(e, w, env, vars, budget));
}
