// A webhook authorizer's matchConditions: CEL expressions over `request`, the review's spec as
// authorization.k8s.io/v1 names it. The value is the whole spec — every string attribute, the
// groups and the extra present even when empty — so `request.resourceAttributes.namespace` of a
// cluster-scoped request is "" rather than a missing key; only resourceAttributes or
// nonResourceAttributes (whichever the request is not) and absent selectors are missing.
import { BoolType, formatType } from "../../cel/types.js";
import { compileCel, type CelEnvironment, type CelProgram } from "../../cel/program.js";
import { toCel } from "../../cel/convert.js";
import { authorizationMatchEnvironment, subjectAccessReviewSpecType } from "../../cel/environments.js";
import { aggregateErrors } from "../union.js";
import type { ReviewSpec } from "./review-spec.js";

const envs = new Map<boolean, CelEnvironment>();
/** The CEL environment of match conditions (one object per selector setting, so programs are cached). */
function matchEnvironment(authorizeWithSelectors: boolean): CelEnvironment {
  let env = envs.get(authorizeWithSelectors);
  if (!env) envs.set(authorizeWithSelectors, (env = authorizationMatchEnvironment(authorizeWithSelectors)));
  return env;
}

/** Compiles a match condition; throws with upstream's detail ("compilation failed: …", "must evaluate to bool …"). */
export function compileMatchCondition(expression: string, authorizeWithSelectors: boolean): CelProgram {
  let p: CelProgram;
  try {
    p = compileCel(expression, matchEnvironment(authorizeWithSelectors));
  } catch (e) {
    throw new Error(`compilation failed: ${(e as Error).message}`);
  }
  if (formatType(p.resultType) !== formatType(BoolType)) throw new Error(`must evaluate to bool but got ${formatType(p.resultType)}`);
  return p;
}

/** What the conditions said: all true, one false (earlier failures notwithstanding), or failures and no false. */
export interface MatchOutcome {
  result: "match" | "no-match" | "error";
  /** The aggregated evaluation errors; also set on a no-match that came after a failure (it is counted). */
  error?: string;
}

/**
 * Evaluates the conditions in order: the first false settles it (no match, no error to act on);
 * a condition that fails is remembered and the rest still run; with no false, any failure is the
 * outcome's error.
 */
export function evaluateMatchConditions(conditions: readonly CelProgram[], spec: ReviewSpec, authorizeWithSelectors: boolean): MatchOutcome {
  if (conditions.length === 0) return { result: "match" };
  const request = toCel(spec, subjectAccessReviewSpecType(authorizeWithSelectors));
  const errors: string[] = [];
  for (const p of conditions) {
    let value: unknown;
    try {
      value = p.eval({ request }).value;
    } catch (e) {
      errors.push(`cel evaluation error: expression '${p.expression}' resulted in error: ${(e as Error).message}`);
      continue;
    }
    if (value === false) return { result: "no-match", ...(errors.length > 0 ? { error: aggregateErrors(errors) } : {}) };
  }
  if (errors.length > 0) return { result: "error", error: aggregateErrors(errors) };
  return { result: "match" };
}
