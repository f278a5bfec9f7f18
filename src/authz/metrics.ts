// Authorization metrics on /metrics: decisions per authorizer, webhook evaluations, their
// latency and fail-opens, match condition errors and exclusions, and the configuration file's
// automatic reloads (names, labels, stability and buckets as kube-apiserver 1.34 exports them).
import { createHash } from "node:crypto";
import { CounterFamily, GaugeFamily, HistogramFamily, defaultBuckets } from "../observability/metric-family.js";
import type { WebhookMetricsSink } from "./webhook/index.js";

export const sha256Label = (data: string) => (data ? `sha256:${createHash("sha256").update(data).digest("hex")}` : "");

export class AuthorizationMetrics implements WebhookMetricsSink {
  readonly decisions = new CounterFamily({ name: "apiserver_authorization_decisions_total", help: "Final decisions of each authorizer, by authorizer type, name and decision.", stability: "ALPHA", labels: ["type", "name", "decision"] });
  readonly evaluations = new CounterFamily({ name: "apiserver_authorization_webhook_evaluations_total", help: "Calls to authorization webhooks, by name and result.", stability: "ALPHA", labels: ["name", "result"] });
  readonly durations = new HistogramFamily({ name: "apiserver_authorization_webhook_duration_seconds", help: "How long calls to authorization webhooks took, in seconds, by name and result.", stability: "ALPHA", labels: ["name", "result"], buckets: defaultBuckets });
  readonly failOpens = new CounterFamily({ name: "apiserver_authorization_webhook_evaluations_fail_open_total", help: "Authorization webhook calls that timed out or failed and so gave no opinion, by name and result.", stability: "ALPHA", labels: ["name", "result"] });
  readonly matchErrors = new CounterFamily({ name: "apiserver_authorization_match_condition_evaluation_errors_total", help: "Authorization webhook match conditions that could not be evaluated, by authorizer type and name.", stability: "ALPHA", labels: ["type", "name"] });
  readonly matchExclusions = new CounterFamily({ name: "apiserver_authorization_match_condition_exclusions_total", help: "Authorization webhooks skipped because their match conditions left the request out, by authorizer type and name.", stability: "ALPHA", labels: ["type", "name"] });
  readonly reloads = new CounterFamily({ name: "apiserver_authorization_config_controller_automatic_reloads_total", help: "Automatic reloads of the authorization configuration file, by status and API server identity.", stability: "BETA", labels: ["status", "apiserver_id_hash"] });
  readonly reloadTimestamp = new GaugeFamily({ name: "apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds", help: "When the authorization configuration file was last reloaded (Unix seconds), by status and API server identity.", stability: "BETA", labels: ["status", "apiserver_id_hash"] });
  readonly lastConfig = new GaugeFamily({ name: "apiserver_authorization_config_controller_last_config_info", help: "The authorization configuration in effect, named by its hash, by API server identity.", stability: "ALPHA", labels: ["apiserver_id_hash", "hash"] });
  readonly families = [this.decisions, this.evaluations, this.durations, this.failOpens, this.matchErrors, this.matchExclusions, this.reloads, this.reloadTimestamp, this.lastConfig];

  constructor(private readonly apiServerIdHash: string) {}

  decision(type: string, name: string, decision: "allowed" | "denied"): void {
    this.decisions.with(type, name, decision).inc();
  }
  evaluation(name: string, result: string, seconds: number): void {
    this.evaluations.with(name, result).inc();
    this.durations.with(name, result).observe(seconds);
  }
  failOpen(name: string, result: string): void {
    this.failOpens.with(name, result).inc();
  }
  matchConditionError(name: string): void {
    this.matchErrors.with("Webhook", name).inc();
  }
  matchConditionExclusion(name: string): void {
    this.matchExclusions.with("Webhook", name).inc();
  }
  reload(status: "success" | "failure"): void {
    this.reloads.with(status, this.apiServerIdHash).inc();
    this.reloadTimestamp.with(status, this.apiServerIdHash).set(Date.now() / 1000);
  }
  configInfo(data: string): void {
    this.lastConfig.reset();
    this.lastConfig.with(this.apiServerIdHash, sha256Label(data)).set(1);
  }

  /** Its families in the text format. */
  text(): string {
    return this.families.map((f) => f.render()).join("");
  }
}
