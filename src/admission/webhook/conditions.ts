// matchConditions of admission webhooks: CEL expressions over `object`, `oldObject`, `request`
// and `authorizer` (upstream: webhook/matchconditions). Any condition false skips the webhook;
// otherwise an evaluation error lets failurePolicy decide (Fail: the request is forbidden with
// the errors; Ignore: the webhook is skipped).
import type { Authorizer } from "../../authz/authorizer.js";
import { toCel } from "../../cel/convert.js";
import { admissionRequestType, authorizerType, resourceCheckType } from "../../cel/environments.js";
import { authorizerValue, memoizingAuthorizer, requestResourceValue } from "../../cel/library/authz.js";
import { celAuthorizer } from "../../authz/cel-authorizer.js";
import { compileCel, type CelEnvironment, type CelProgram } from "../../cel/program.js";
import { BoolType, DynType, formatType } from "../../cel/types.js";
import type { CelValue } from "../../cel/value.js";
import type { AdmissionAttributes } from "../../registry/admission.js";
import type { MatchedResource } from "../matching/index.js";
import type { FailurePolicy, MatchCondition } from "./types.js";

/** The variables a webhook's match condition may read (upstream's webhook filter environment). */
export const webhookMatchEnvironment: CelEnvironment = {
  name: "admission-webhook-match",
  variables: {
    object: DynType,
    oldObject: DynType,
    request: admissionRequestType,
    authorizer: authorizerType,
    "authorizer.requestResource": resourceCheckType,
  },
};

export interface CompiledCondition {
  name: string;
  expression: string;
  program?: CelProgram;
  compileError?: string;
}

export function compileConditions(conditions: readonly MatchCondition[] | undefined): CompiledCondition[] {
  return (conditions ?? []).map((c) => {
    try {
      const program = compileCel(c.expression, webhookMatchEnvironment);
      if (formatType(program.resultType) !== formatType(BoolType) && formatType(program.resultType) !== formatType(DynType)) {
        return { ...c, compileError: `must evaluate to bool but got ${formatType(program.resultType)}` };
      }
      return { ...c, program };
    } catch (e) {
      return { ...c, compileError: `compilation failed: ${(e as Error).message}` };
    }
  });
}

export type MatchOutcome = { matches: true } | { matches: false } | { error: string };

/** Evaluates the conditions for one request (object and oldObject in the webhook's version). */
export async function evaluateConditions(
  conditions: readonly CompiledCondition[],
  failurePolicy: FailurePolicy,
  input: { a: AdmissionAttributes; matched: MatchedResource; request: Record<string, unknown>; object?: unknown; oldObject?: unknown; authorizer?: Authorizer },
): Promise<MatchOutcome> {
  if (conditions.length === 0) return { matches: true };
  const vars: Record<string, CelValue> = {
    object: toCel(input.object ?? null),
    oldObject: toCel(input.oldObject ?? null),
    request: toCel(input.request, admissionRequestType),
  };
  if (input.authorizer) {
    const service = memoizingAuthorizer(celAuthorizer(() => input.authorizer!));
    const user = input.a.user ? { username: input.a.user.name, uid: input.a.user.uid, groups: input.a.user.groups, extra: input.a.user.extra } : undefined;
    vars.authorizer = authorizerValue(service, user);
    vars["authorizer.requestResource"] = requestResourceValue(service, user, {
      group: input.matched.type.group,
      resource: input.matched.type.resource,
      subresource: input.a.subresource,
      namespace: input.a.namespace,
      name: input.a.name,
    });
  }
  const errors: string[] = [];
  for (const c of conditions) {
    if (!c.program) {
      errors.push(c.compileError ?? "compilation failed");
      continue;
    }
    try {
      const { value } = await c.program.evalAsync(vars);
      if (value === false) return { matches: false };
      if (value !== true) errors.push(`expression '${c.expression}' resulted in error: no such overload`);
    } catch (e) {
      errors.push(`expression '${c.expression}' resulted in error: ${(e as Error).message}`);
    }
  }
  if (errors.length === 0) return { matches: true };
  if (failurePolicy === "Ignore") return { matches: false };
  return { error: errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]` };
}
