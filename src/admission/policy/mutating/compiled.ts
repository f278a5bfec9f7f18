// A MutatingAdmissionPolicy compiled for admission (upstream: mutating compilation.go): its
// variables, match conditions and mutations in one environment per policy that can construct
// `Object{...}` and `JSONPatch{...}`. Errors are kept per expression and reported when the
// policy is invoked, in upstream's words ("compilation failed: ...", "must evaluate to Object but got string").
import { formatType } from "../../../cel/types.js";
import { compileExpression, policyEnvironments, type CompiledExpression, type CompiledVariable } from "../compile.js";
import type { MutatingAdmissionPolicy } from "../types.js";
import type { CompiledMatchCondition } from "../validating/compiled.js";

export interface CompiledMutation {
  readonly patchType: "ApplyConfiguration" | "JSONPatch";
  readonly compiled: CompiledExpression;
}

export interface CompiledMutatingPolicy {
  readonly variables: readonly CompiledVariable[];
  readonly matchConditions: readonly CompiledMatchCondition[];
  readonly mutations: readonly CompiledMutation[];
}

/** One mutation's expression compiled, with upstream's error when it does not compile or returns the wrong type. */
export function compileMutation(expression: string, patchType: CompiledMutation["patchType"], env: Parameters<typeof compileExpression>[1]): CompiledMutation {
  const c = compileExpression(expression, env, ["any"]);
  if (!c.program) return { patchType, compiled: { expression, error: c.error!.replace(/^compilation error: /, "") } };
  const t = c.program.resultType;
  const ok = patchType === "ApplyConfiguration" ? t.kind === "object" && t.name === "Object" : t.kind === "list" && t.elem.kind === "object" && t.elem.name === "JSONPatch";
  if (!ok) return { patchType, compiled: { expression, error: `must evaluate to ${patchType === "ApplyConfiguration" ? "Object" : "list(JSONPatch)"} but got ${formatType(t)}` } };
  return { patchType, compiled: c };
}

export function compileMutatingPolicy(p: MutatingAdmissionPolicy): CompiledMutatingPolicy {
  const spec = p.spec ?? {};
  const envs = policyEnvironments(!!spec.paramKind, spec.variables ?? [], undefined, true);
  const mutations: CompiledMutation[] = [];
  for (const m of spec.mutations ?? []) {
    if (m.patchType === "JSONPatch" && m.jsonPatch) mutations.push(compileMutation(m.jsonPatch.expression, "JSONPatch", envs.withAuthorizer));
    else if (m.patchType === "ApplyConfiguration" && m.applyConfiguration) mutations.push(compileMutation(m.applyConfiguration.expression, "ApplyConfiguration", envs.withAuthorizer));
  }
  return {
    variables: envs.variables,
    matchConditions: (spec.matchConditions ?? []).map((m) => ({ name: m.name, compiled: compileExpression(m.expression, envs.withAuthorizer, ["bool"]) })),
    mutations,
  };
}
