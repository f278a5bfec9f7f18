// kube-apiserver's audit families (apiserver/pkg/audit/metrics.go): events generated, events a
// backend lost (by plugin), requests by policy level, and requests refused because their audit
// event could not be stored (blocking-strict). Registered whether or not the server audits, as
// upstream's are.
import type { ServerMetrics } from "../metrics.js";
import { CounterFamily, type CounterCell } from "../metric-family.js";
import type { PluginErrors } from "./backend.js";
import type { Level } from "./types.js";

export class AuditMetrics {
  readonly events = new CounterFamily({ name: "apiserver_audit_event_total", help: "Audit events generated and handed to the audit backends.", stability: "ALPHA" });
  readonly errors = new CounterFamily({ name: "apiserver_audit_error_total", help: "Audit events a backend failed to record, by the plugin that failed.", stability: "ALPHA", labels: ["plugin"] });
  readonly levels = new CounterFamily({ name: "apiserver_audit_level_total", help: "Requests by the audit level the policy gave them.", stability: "ALPHA", labels: ["level"] });
  readonly rejected = new CounterFamily({ name: "apiserver_audit_requests_rejected_total", help: "Requests refused because the audit backend could not record them.", stability: "ALPHA" });
  private readonly eventCell = this.events.with();
  private readonly rejectedCell = this.rejected.with();
  private readonly byLevel = new Map<Level, CounterCell>();

  constructor(private readonly log: (message: string) => void = (m) => process.stderr.write(m + "\n")) {}

  /** An event handed to the backends (one per stage recorded). */
  event(): void {
    this.eventCell.inc();
  }

  /** The policy's level for one request. */
  level(level: Level): void {
    let c = this.byLevel.get(level);
    if (!c) this.byLevel.set(level, (c = this.levels.with(level)));
    c.inc();
  }

  /** A request failed because its RequestReceived event could not be stored. */
  requestRejected(): void {
    this.rejectedCell.inc();
  }

  /** Events a backend could not record: counted by plugin, and logged with their one-line text (upstream's HandlePluginError). */
  readonly pluginError: PluginErrors = (plugin, err, events) => {
    this.errors.with(plugin).inc(events.length);
    this.log(`Error in audit plugin '${plugin}' affecting ${events.length} audit events: ${err.message}\nImpacted events:\n${events.map((e) => e.legacy() + "\n").join("")}`);
  };

  register(metrics: ServerMetrics): void {
    metrics.register(this.events, this.errors, this.levels, this.rejected);
  }
}
