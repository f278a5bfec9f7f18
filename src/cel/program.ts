// kapi's CEL engine behind one small interface: compile an expression for an environment (the
// typed variables it may read) into a program, then evaluate the program with values for them
// under a cost budget. Compiling parses, type-checks and estimates the worst-case cost once;
// programs are cached per environment object and expression, so a rule stored in a CRD or a
// policy is compiled once however often it runs.
import type { CheckedExpr } from "./ast.js";
import { createCheckerEnv, check, type CheckerEnv } from "./checker/index.js";
import { estimateCost } from "./cost/estimate.js";
import { perCallLimit } from "./cost/constants.js";
import { plan, type Program } from "./interpreter/index.js";
import type { CelLibrary, Estimate } from "./library.js";
import { kubernetesLibraries } from "./libraries.js";
import { CelPendingAuthorization } from "./library/authz.js";
import { parse } from "./parser/index.js";
import type { CelType, ObjectType } from "./types.js";
import type { CelValue } from "./value.js";

export { CelCompileError, CelProgramError } from "./source.js";
export { CelEvalError } from "./value.js";

/** The variables an expression may read, with their types, and the libraries it may call. */
export interface CelEnvironment {
  readonly name: string;
  readonly variables: Readonly<Record<string, CelType>>;
  /** Default: every library Kubernetes 1.34 enables (./libraries.ts). */
  readonly libraries?: readonly CelLibrary[];
  /**
   * For CRD rules: the schema type of `self`, from which the estimator reads the size bounds of
   * everything reached from a variable (as apiextensions' size estimator does).
   */
  readonly costSizeRoot?: CelType;
  /** Object types `Name{...}` may construct beyond those the variables reach (MutatingAdmissionPolicy's `Object.*`, `JSONPatch`). */
  readonly structTypes?: (name: string) => ObjectType | undefined;
}

export interface CelBudget {
  /** Runtime cost limit of this evaluation; default the per-call limit (1,000,000). */
  readonly costLimit?: number;
  /** Values library functions reach besides variables (the authorizer service, …). */
  readonly services?: Readonly<Record<string, unknown>>;
}

export interface CelProgram {
  readonly expression: string;
  readonly resultType: CelType;
  /** Worst-case cost from the variables' declared sizes. */
  readonly estimatedCost: Estimate;
  readonly checked: CheckedExpr;
  /** Evaluates; a runtime error (or the budget running out) throws CelEvalError. */
  eval(vars: Readonly<Record<string, CelValue>>, budget?: CelBudget): { value: CelValue; cost: number };
  /**
   * Evaluates where a library may wait (an asynchronous authorizer behind `authorizer.check`):
   * each pending answer is awaited and the expression evaluated again, answering from the
   * memo (the authorizer value must be built on `memoizingAuthorizer`).
   */
  evalAsync(vars: Readonly<Record<string, CelValue>>, budget?: CelBudget): Promise<{ value: CelValue; cost: number }>;
}

interface CompiledEnvironment {
  readonly env: CelEnvironment;
  readonly checker: CheckerEnv;
  readonly libraries: readonly CelLibrary[];
  readonly programs: Map<string, CelProgram>;
}

// Keyed by the environment object: two environments that share a name but not their variables
// must not share programs.
const environments = new WeakMap<CelEnvironment, CompiledEnvironment>();
const maxCachedPerEnvironment = 10_000;

export function compileCel(expression: string, env: CelEnvironment): CelProgram {
  const compiled = compiledEnvironment(env);
  let program = compiled.programs.get(expression);
  if (!program) {
    program = compileUncached(expression, compiled);
    if (compiled.programs.size >= maxCachedPerEnvironment) compiled.programs.delete(compiled.programs.keys().next().value as string);
    compiled.programs.set(expression, program);
  }
  return program;
}

function compiledEnvironment(env: CelEnvironment): CompiledEnvironment {
  let compiled = environments.get(env);
  if (!compiled) {
    const libraries = env.libraries ?? kubernetesLibraries;
    compiled = { env, checker: createCheckerEnv({ variables: env.variables, libraries, structTypes: env.structTypes }), libraries, programs: new Map() };
    environments.set(env, compiled);
  }
  return compiled;
}

function compileUncached(expression: string, env: CompiledEnvironment): CelProgram {
  const checked = check(parse(expression), env.checker);
  const estimatedCost = estimateCost(checked, env.libraries, { sizeRoot: env.env.costSizeRoot });
  const planned: Program = plan(checked, env.libraries);
  return {
    expression,
    resultType: checked.resultType,
    estimatedCost,
    checked,
    eval(vars, budget = {}) {
      return planned.eval(vars, { costLimit: budget.costLimit ?? perCallLimit, services: budget.services });
    },
    async evalAsync(vars, budget = {}) {
      for (;;) {
        try {
          return this.eval(vars, budget);
        } catch (e) {
          if (!(e instanceof CelPendingAuthorization)) throw e;
          await e.pending;
        }
      }
    },
  };
}
