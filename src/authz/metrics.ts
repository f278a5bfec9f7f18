// Authorization metrics, in Prometheus text, appended to /metrics: decisions per authorizer,
// webhook evaluations and fail-opens, match condition errors and exclusions, and the
// configuration file's automatic reloads (names and labels as kube-apiserver 1.34 exports them).
import { createHash } from "node:crypto";
import type { WebhookMetricsSink } from "./webhook/index.js";

type Labels = Record<string, string>;

class Family {
  readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: "counter" | "gauge",
  ) {}
  private key(l: Labels) {
    return JSON.stringify(Object.entries(l).sort());
  }
  inc(l: Labels, by = 1): void {
    const k = this.key(l);
    const e = this.values.get(k);
    if (e) e.value += by;
    else this.values.set(k, { labels: l, value: by });
  }
  set(l: Labels, v: number): void {
    this.values.set(this.key(l), { labels: l, value: v });
  }
  render(): string {
    if (this.values.size === 0) return "";
    const lines = [`# HELP ${this.name} [BETA] ${this.help}`, `# TYPE ${this.name} ${this.type}`];
    for (const { labels, value } of this.values.values()) {
      const ls = Object.entries(labels)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => `${k}="${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`)
        .join(",");
      lines.push(`${this.name}{${ls}} ${value}`);
    }
    return lines.join("\n") + "\n";
  }
}

export const sha256Label = (data: string) => (data ? `sha256:${createHash("sha256").update(data).digest("hex")}` : "");

export class AuthorizationMetrics implements WebhookMetricsSink {
  readonly decisions = new Family("apiserver_authorization_decisions_total", "Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.", "counter");
  readonly evaluations = new Family("apiserver_authorization_webhook_evaluations_total", "Round-trips to authorization webhooks.", "counter");
  readonly failOpens = new Family("apiserver_authorization_webhook_evaluations_fail_open_total", "NoOpinion results due to webhook timeout or error.", "counter");
  readonly matchErrors = new Family("apiserver_authorization_match_condition_evaluation_errors_total", "Total number of errors when an authorization webhook encounters a match condition error split by authorizer type and name.", "counter");
  readonly matchExclusions = new Family("apiserver_authorization_match_condition_exclusions_total", "Total number of exclusions when an authorization webhook is skipped because match conditions exclude it.", "counter");
  readonly reloads = new Family("apiserver_authorization_config_controller_automatic_reloads_total", "Total number of automatic reloads of authorization configuration split by status and apiserver identity.", "counter");
  readonly reloadTimestamp = new Family("apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds", "Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.", "gauge");
  readonly lastConfig = new Family("apiserver_authorization_config_controller_last_config_info", "Information about the last applied authorization configuration with hash as label, split by apiserver identity.", "gauge");

  constructor(private readonly apiServerIdHash: string) {}

  decision(type: string, name: string, decision: "allowed" | "denied"): void {
    this.decisions.inc({ type, name, decision });
  }
  evaluation(name: string, result: string): void {
    this.evaluations.inc({ name, result });
  }
  failOpen(name: string, result: string): void {
    this.failOpens.inc({ name, result });
  }
  matchConditionError(name: string): void {
    this.matchErrors.inc({ type: "Webhook", name });
  }
  matchConditionExclusion(name: string): void {
    this.matchExclusions.inc({ type: "Webhook", name });
  }
  reload(status: "success" | "failure"): void {
    const l = { status, apiserver_id_hash: this.apiServerIdHash };
    this.reloads.inc(l);
    this.reloadTimestamp.set(l, Date.now() / 1000);
  }
  configInfo(data: string): void {
    this.lastConfig.values.clear();
    this.lastConfig.set({ apiserver_id_hash: this.apiServerIdHash, hash: sha256Label(data) }, 1);
  }

  text(): string {
    return [this.decisions, this.evaluations, this.failOpens, this.matchErrors, this.matchExclusions, this.reloads, this.reloadTimestamp, this.lastConfig].map((f) => f.render()).join("");
  }
}
