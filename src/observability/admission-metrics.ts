// The admission families of kube-apiserver 1.34 (apiserver/pkg/admission/metrics): the latency
// of each admission step (the whole mutating or validating pass), of each plugin, and of each
// webhook call; webhook calls, rejections and fail-opens.
import { AdmissionPolicyMetrics } from "./admission-policy-metrics.js";
import { CounterFamily, HistogramFamily, SummaryFamily } from "./metric-family.js";

export type AdmissionStepType = "admit" | "validate";
/** Webhooks say "admit" for mutating and "validating" for validating ones (upstream's labels). */
export type WebhookType = "admit" | "validating";
/** Why a webhook rejected: it said no, it could not be called, or the server failed around it. */
export type WebhookRejectionError = "no_error" | "calling_webhook_error" | "apiserver_internal_error";

const stepBuckets = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];
/** Codes above 600 count as 600 (upstream bounds the cardinality so). */
const boundedCode = (code: number) => String(Math.min(code, 600));

export class AdmissionMetrics {
  readonly step = new HistogramFamily({
    name: "apiserver_admission_step_admission_duration_seconds",
    help: "How long each admission phase (admit or validate) took, in seconds, by operation and whether it rejected the request.",
    stability: "STABLE",
    labels: ["type", "operation", "rejected"],
    buckets: stepBuckets,
  });
  readonly stepSummary = new SummaryFamily({
    name: "apiserver_admission_step_admission_duration_seconds_summary",
    help: "Total and count of the durations of admission phases, in seconds, by phase, operation and whether it rejected the request.",
    stability: "ALPHA",
    labels: ["type", "operation", "rejected"],
  });
  readonly controller = new HistogramFamily({
    name: "apiserver_admission_controller_admission_duration_seconds",
    help: "How long each admission plugin took, in seconds, by plugin name, phase (admit or validate), operation and whether it rejected the request.",
    stability: "STABLE",
    labels: ["name", "type", "operation", "rejected"],
    buckets: stepBuckets,
  });
  readonly webhook = new HistogramFamily({
    name: "apiserver_admission_webhook_admission_duration_seconds",
    help: "How long each admission webhook call took, in seconds, by webhook name, type (admit or validating), operation and whether it rejected the request.",
    stability: "STABLE",
    labels: ["name", "type", "operation", "rejected"],
    buckets: [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25],
  });
  readonly webhookRejections = new CounterFamily({
    name: "apiserver_admission_webhook_rejection_count",
    help: "Requests rejected through an admission webhook, by webhook name, type, operation, error type (no_error: the webhook said no; calling_webhook_error: it could not be called; apiserver_internal_error: the server failed around it) and status code (0 when there was none, 600 for any above 600).",
    stability: "ALPHA",
    labels: ["name", "type", "operation", "error_type", "rejection_code"],
  });
  readonly webhookFailOpen = new CounterFamily({
    name: "apiserver_admission_webhook_fail_open_count",
    help: "Admission webhook calls that failed and were let through (failurePolicy Ignore), by webhook name and type.",
    stability: "ALPHA",
    labels: ["name", "type"],
  });
  readonly webhookRequests = new CounterFamily({
    name: "apiserver_admission_webhook_request_total",
    help: "Admission webhook calls, by webhook name, type, operation, status code (600 for any above 600) and whether the call rejected the request.",
    stability: "ALPHA",
    labels: ["name", "type", "operation", "code", "rejected"],
  });
  /** ValidatingAdmissionPolicy and MutatingAdmissionPolicy checks. */
  readonly policies = new AdmissionPolicyMetrics();
  readonly families = [this.step, this.stepSummary, this.controller, this.webhook, this.webhookRejections, this.webhookFailOpen, this.webhookRequests, ...this.policies.families];

  /** One pass of the chain (upstream: WithStepMetrics). */
  observeStep(type: AdmissionStepType, operation: string, rejected: boolean, seconds: number): void {
    const r = String(rejected);
    this.step.with(type, operation, r).observe(seconds);
    this.stepSummary.with(type, operation, r).observe(seconds);
  }

  /** One plugin of the chain (upstream: WithControllerMetrics). */
  observeController(name: string, type: AdmissionStepType, operation: string, rejected: boolean, seconds: number): void {
    this.controller.with(name, type, operation, String(rejected)).observe(seconds);
  }

  /** One webhook call and the status it came back with (200, the webhook's or the failure's code, 0 for the server's own failure). */
  observeWebhook(name: string, type: WebhookType, operation: string, rejected: boolean, code: number, seconds: number): void {
    this.webhookRequests.with(name, type, operation, boundedCode(code), String(rejected)).inc();
    this.webhook.with(name, type, operation, String(rejected)).observe(seconds);
  }

  observeWebhookRejection(name: string, type: WebhookType, operation: string, error: WebhookRejectionError, code: number): void {
    this.webhookRejections.with(name, type, operation, error, boundedCode(code)).inc();
  }

  observeWebhookFailOpen(name: string, type: WebhookType): void {
    this.webhookFailOpen.with(name, type).inc();
  }
}
