// One policy evaluated for one (request, binding, param) (upstream: validating validator.go):
// match conditions first, then every validation into a decision (admit, deny with a reason and
// message, or an evaluation error the failure policy turns into deny or admit), then the audit
// annotations. All of it shares one runtime cost budget.
import type { CelValue } from "../../../cel/value.js";
import { Evaluation, OutOfBudget } from "../activation.js";
import type { FailurePolicy } from "../types.js";
import type { CompiledValidatingPolicy } from "./compiled.js";

export type DecisionAction = "admit" | "deny";

export interface PolicyDecision {
  action: DecisionAction;
  evaluation: "admit" | "deny" | "error";
  message: string;
  reason?: string;
  /** How long its expression (and message expression) took to evaluate, in seconds; 0 when none was. */
  seconds: number;
}

export interface AuditAnnotationResult {
  key: string;
  action: "publish" | "exclude" | "error";
  value?: string;
  error?: string;
  /** How long its expression took to evaluate, in seconds. */
  seconds: number;
}

export interface ValidateResult {
  decisions: PolicyDecision[];
  auditAnnotations: AuditAnnotationResult[];
}

/** upstream celconfig.MaxEvaluatedMessageExpressionSizeBytes */
const maxMessageBytes = 5 * 1024;

const onError = (f: FailurePolicy): DecisionAction => (f === "Ignore" ? "admit" : "deny");
const errorDecision = (f: FailurePolicy, message: string): ValidateResult => ({ decisions: [{ action: onError(f), evaluation: "error", message, seconds: 0 }], auditAnnotations: [] });
const since = (start: number) => (performance.now() - start) / 1000;

/** The error type the check metrics give a decision (upstream's ErrorType: a denial is an "invalid_error"). */
export function decisionErrorType(d: Pick<PolicyDecision, "evaluation" | "message">): "no_error" | "compile_error" | "invalid_error" | "out_of_budget" {
  if (d.evaluation === "admit") return "no_error";
  if (d.message.startsWith("compilation")) return "compile_error";
  if (d.message.startsWith("validation failed due to running out of cost budget")) return "out_of_budget";
  return "invalid_error";
}

/** Aggregated errors as Go's utilerrors.NewAggregate prints them. */
export function aggregate(messages: string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(", ")}]`;
}

/**
 * `evaluation()` makes an evaluation context: the match conditions get one of their own (their
 * own cost budget, as upstream's matcher has), the validations, messages and audit annotations
 * share another.
 */
export async function validate(p: CompiledValidatingPolicy, failurePolicy: FailurePolicy, evaluation: () => Evaluation): Promise<ValidateResult> {
  try {
    // Match conditions: any false skips the policy; errors (with none false) go to the failure policy.
    if (p.matchConditions.length > 0) {
      const errors: string[] = [];
      const mcEv = evaluation();
      for (const mc of p.matchConditions) {
        const r = await mcEv.eval(mc.compiled);
        if (r.error !== undefined) errors.push(r.error);
        else if (r.value === false) return { decisions: [], auditAnnotations: [] };
      }
      if (errors.length > 0) {
        if (failurePolicy === "Ignore") return { decisions: [], auditAnnotations: [] };
        return errorDecision(failurePolicy, aggregate(errors));
      }
    }
    const ev = evaluation();
    const decisions: PolicyDecision[] = [];
    for (const v of p.validations) {
      const start = performance.now();
      const r = await ev.eval(v.compiled);
      if (r.error !== undefined) {
        decisions.push({ action: onError(failurePolicy), evaluation: "error", message: r.error, seconds: since(start) });
        continue;
      }
      if (r.value === true) {
        decisions.push({ action: "admit", evaluation: "admit", message: "", seconds: since(start) });
        continue;
      }
      let message = "";
      if (v.messageCompiled) {
        let m: { value?: CelValue; error?: string };
        try {
          m = await ev.eval(v.messageCompiled, false);
        } catch (e) {
          if (!(e instanceof OutOfBudget)) throw e;
          decisions.push({ action: onError(failurePolicy), evaluation: "error", message: `failed messageExpression: ${e.message}`, seconds: since(start) });
          continue;
        }
        if (typeof m.value === "string") {
          message = m.value.trim();
          if (Buffer.byteLength(message) > maxMessageBytes || message.includes("\n")) message = "";
        }
      }
      if (message === "" && v.message) message = v.message.trim();
      if (message === "") message = `failed expression: ${v.expression.trim()}`;
      decisions.push({ action: "deny", evaluation: "deny", message, reason: v.reason || "Invalid", seconds: since(start) });
    }
    const auditAnnotations: AuditAnnotationResult[] = [];
    for (const a of p.auditAnnotations) {
      const start = performance.now();
      const r = await ev.eval(a.compiled);
      const seconds = since(start);
      if (r.error !== undefined) {
        auditAnnotations.push({ key: a.key, action: failurePolicy === "Ignore" ? "exclude" : "error", error: r.error, seconds });
      } else if (typeof r.value === "string" && r.value.trim() !== "") {
        auditAnnotations.push({ key: a.key, action: "publish", value: r.value.trim(), seconds });
      } else {
        auditAnnotations.push({ key: a.key, action: "exclude", seconds });
      }
    }
    return { decisions, auditAnnotations };
  } catch (e) {
    if (e instanceof OutOfBudget) return errorDecision(failurePolicy, e.message);
    throw e;
  }
}
