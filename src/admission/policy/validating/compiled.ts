// A ValidatingAdmissionPolicy compiled for admission (upstream: validating plugin compilePolicy):
// match conditions, validations and their message expressions, audit annotations, all in one
// environment per policy with its variables.
import { compileExpression, policyEnvironments, type CompiledExpression, type CompiledVariable } from "../compile.js";
import type { ValidatingAdmissionPolicy, Validation } from "../types.js";

export interface CompiledValidation extends Validation {
  readonly compiled: CompiledExpression;
  readonly messageCompiled?: CompiledExpression;
}

export interface CompiledMatchCondition {
  readonly name: string;
  readonly compiled: CompiledExpression;
}

export interface CompiledValidatingPolicy {
  readonly variables: readonly CompiledVariable[];
  readonly matchConditions: readonly CompiledMatchCondition[];
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly { key: string; compiled: CompiledExpression }[];
}

export function compileValidatingPolicy(p: ValidatingAdmissionPolicy): CompiledValidatingPolicy {
  const spec = p.spec ?? {};
  const envs = policyEnvironments(!!spec.paramKind, spec.variables ?? []);
  return {
    variables: envs.variables,
    matchConditions: (spec.matchConditions ?? []).map((m) => ({ name: m.name, compiled: compileExpression(m.expression, envs.withAuthorizer, ["bool"]) })),
    validations: (spec.validations ?? []).map((v) => ({
      ...v,
      compiled: compileExpression(v.expression, envs.withAuthorizer, ["bool"]),
      messageCompiled: v.messageExpression ? compileExpression(v.messageExpression, envs.withoutAuthorizer, ["string"]) : undefined,
    })),
    auditAnnotations: (spec.auditAnnotations ?? []).map((a) => ({ key: a.key, compiled: compileExpression(a.valueExpression, envs.withAuthorizer, ["string", "null"]) })),
  };
}
