// The admission families of kube-apiserver 1.34 (apiserver/pkg/admission/metrics): the latency
// of each admission step (the whole mutating or validating pass), of each plugin, and of each
// webhook call; webhook calls, rejections and fail-opens.
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
    help: "Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).",
    stability: "STABLE",
    labels: ["type", "operation", "rejected"],
    buckets: stepBuckets,
  });
  readonly stepSummary = new SummaryFamily({
    name: "apiserver_admission_step_admission_duration_seconds_summary",
    help: "Admission sub-step latency summary in seconds, broken out for each operation and API resource and step type (validate or admit).",
    stability: "ALPHA",
    labels: ["type", "operation", "rejected"],
  });
  readonly controller = new HistogramFamily({
    name: "apiserver_admission_controller_admission_duration_seconds",
    help: "Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
    stability: "STABLE",
    labels: ["name", "type", "operation", "rejected"],
    buckets: stepBuckets,
  });
  readonly webhook = new HistogramFamily({
    name: "apiserver_admission_webhook_admission_duration_seconds",
    help: "Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
    stability: "STABLE",
    labels: ["name", "type", "operation", "rejected"],
    buckets: [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25],
  });
  readonly webhookRejections = new CounterFamily({
    name: "apiserver_admission_webhook_rejection_count",
    help: "Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
    stability: "ALPHA",
    labels: ["name", "type", "operation", "error_type", "rejection_code"],
  });
  readonly webhookFailOpen = new CounterFamily({
    name: "apiserver_admission_webhook_fail_open_count",
    help: "Admission webhook fail open count, identified by name and broken out for each admission type (validating or admit).",
    stability: "ALPHA",
    labels: ["name", "type"],
  });
  readonly webhookRequests = new CounterFamily({
    name: "apiserver_admission_webhook_request_total",
    help: "Admission webhook request total, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
    stability: "ALPHA",
    labels: ["name", "type", "operation", "code", "rejected"],
  });
  readonly families = [this.step, this.stepSummary, this.controller, this.webhook, this.webhookRejections, this.webhookFailOpen, this.webhookRequests];

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
