// The admission policy families of kube-apiserver 1.34 (admission/plugin/policy/validating/metrics
// and .../mutating/metrics): checks of ValidatingAdmissionPolicy validations and of
// MutatingAdmissionPolicy mutations, counted and timed by policy, binding and error type (and,
// for validations, the enforcement action taken). As upstream, a validation that passes is not
// counted; one that failed to evaluate and was let through (failurePolicy Ignore) is, as "allow".
import { CounterFamily, HistogramFamily } from "./metric-family.js";

/** Why a check did not simply pass (upstream's ValidationErrorType and MutationErrorType values). */
export type PolicyErrorType = "no_error" | "compile_error" | "invalid_error" | "out_of_budget";
export type EnforcementAction = "allow" | "deny" | "audit" | "warn";

const buckets = [0.0000005, 0.001, 0.01, 0.1, 1.0];
const validating = ["policy", "policy_binding", "error_type", "enforcement_action"];
const mutating = ["policy", "policy_binding", "error_type"];

export class AdmissionPolicyMetrics {
  readonly validatingChecks = new CounterFamily({
    name: "apiserver_validating_admission_policy_check_total",
    help: "Checks of ValidatingAdmissionPolicy validations, by policy, binding, error type and the enforcement action taken.",
    stability: "BETA",
    labels: validating,
  });
  readonly validatingLatency = new HistogramFamily({
    name: "apiserver_validating_admission_policy_check_duration_seconds",
    help: "How long single ValidatingAdmissionPolicy validation expressions took, in seconds, by policy, binding, error type and the enforcement action taken.",
    stability: "BETA",
    labels: validating,
    buckets,
  });
  readonly mutatingChecks = new CounterFamily({
    name: "apiserver_mutating_admission_policy_check_total",
    help: "Checks of MutatingAdmissionPolicy mutations, by policy, binding and error type.",
    stability: "ALPHA",
    labels: mutating,
  });
  readonly mutatingLatency = new HistogramFamily({
    name: "apiserver_mutating_admission_policy_check_duration_seconds",
    help: "How long single MutatingAdmissionPolicy mutation expressions took, in seconds, by policy, binding and error type.",
    stability: "ALPHA",
    labels: mutating,
    buckets,
  });
  readonly families = [this.validatingChecks, this.validatingLatency, this.mutatingChecks, this.mutatingLatency];

  validation(policy: string, binding: string, errorType: PolicyErrorType, action: EnforcementAction, seconds: number): void {
    this.validatingChecks.with(policy, binding, errorType, action).inc();
    this.validatingLatency.with(policy, binding, errorType, action).observe(seconds);
  }

  mutation(policy: string, binding: string, errorType: PolicyErrorType, seconds: number): void {
    this.mutatingChecks.with(policy, binding, errorType).inc();
    this.mutatingLatency.with(policy, binding, errorType).observe(seconds);
  }
}
