// Compiling a policy's CEL expressions (upstream: plugin/cel compile.go and composition.go). Each
// policy gets its environments once: `variables` is an object type whose fields are the policy's
// variables in order (a variable sees only those before it), typed by what each compiled to.
// A compile error never fails the policy as a whole: the expression evaluates to that error
// ("compilation error: ..."), and the failure policy decides.
import { admissionPolicyEnvironment, withMutationTypes } from "../../cel/environments.js";
import { compileCel, type CelEnvironment, type CelProgram } from "../../cel/program.js";
import { DynType, formatType, type CelType, type ObjectField, type ObjectType } from "../../cel/types.js";
import type { NamedExpression } from "./types.js";

/** What an expression must evaluate to; "any" accepts every type (variables, type checking). */
export type ReturnKind = "bool" | "string" | "null" | "any";

export interface CompiledExpression {
  readonly expression: string;
  readonly program?: CelProgram;
  /** upstream's cel.Error detail, e.g. "compilation error: ERROR: <input>:1:1: ..." */
  readonly error?: string;
}

export interface CompiledVariable extends CompiledExpression {
  readonly name: string;
}

const returnTypeName: Record<ReturnKind, string> = { bool: "bool", string: "string", null: "null_type", any: "any" };

function returns(t: CelType, kinds: readonly ReturnKind[]): boolean {
  return kinds.some((k) => k === "any" || t.kind === k);
}

export function compileExpression(expression: string, env: CelEnvironment, kinds: readonly ReturnKind[]): CompiledExpression {
  let program: CelProgram;
  try {
    program = compileCel(expression, env);
  } catch (e) {
    return { expression, error: `compilation error: compilation failed: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!returns(program.resultType, kinds)) {
    const reason = kinds.length === 1 ? `must evaluate to ${returnTypeName[kinds[0]!]}` : `must evaluate to one of [${kinds.map((k) => returnTypeName[k]).join(" ")}]`;
    return { expression, error: `compilation error: ${reason}` };
  }
  return { expression, program };
}

/** The environments one policy's expressions compile in, with its variables. */
export interface PolicyEnvironments {
  /** Validations, match conditions, audit annotations, mutations: authorizer declared. */
  readonly withAuthorizer: CelEnvironment;
  /** messageExpression: no authorizer (as upstream). */
  readonly withoutAuthorizer: CelEnvironment;
  readonly variables: readonly CompiledVariable[];
}

const variablesTypeName = "kubernetes.variables";

function variablesType(fields: Map<string, ObjectField>): ObjectType {
  return { kind: "object", name: variablesTypeName, fields: new Map(fields) };
}

/**
 * Compiles the variables in order (each in an environment declaring the ones before it) and
 * returns the environments for the policy's other expressions. `object`, `oldObject` and
 * `params` are dyn at admission time; type checking (./typecheck) declares them from schemas.
 */
export function policyEnvironments(hasParams: boolean, variables: readonly NamedExpression[] = [], overrides?: { object?: CelType; params?: CelType }, mutation = false): PolicyEnvironments {
  const fields = new Map<string, ObjectField>();
  const compiled: CompiledVariable[] = [];
  const make = (hasAuthorizer: boolean) => {
    const env = withTypes(admissionPolicyEnvironment({ hasParams, hasAuthorizer, variables: variablesType(fields) }), overrides);
    return mutation ? withMutationTypes(env) : env;
  };
  for (const v of variables) {
    const c = compileExpression(v.expression, make(true), ["any"]);
    compiled.push({ ...c, name: v.name });
    fields.set(v.name, { type: c.program ? c.program.resultType : DynType, required: true });
  }
  return { withAuthorizer: make(true), withoutAuthorizer: make(false), variables: compiled };
}

function withTypes(env: CelEnvironment, overrides?: { object?: CelType; params?: CelType }): CelEnvironment {
  if (!overrides) return env;
  const vars = { ...env.variables };
  if (overrides.object) vars.object = vars.oldObject = overrides.object;
  if (overrides.params && "params" in vars) vars.params = overrides.params;
  return { ...env, variables: vars };
}

export { formatType };
