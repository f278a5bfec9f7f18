// What a server audits with: the policy, the backends (behind their modes), and the audit
// metrics. The request path asks the policy, makes each request's RequestAudit on the sink, and
// shuts the backends down with the server.
import type { AuditBackend } from "./backend.js";
import type { AuditMetrics } from "./metrics.js";
import type { PolicyEvaluator } from "./policy.js";
import type { AuditSink } from "./request-audit.js";

export interface Auditing {
  readonly policy: PolicyEvaluator;
  /** Every event recorded goes here: counted, then to the backends. */
  readonly sink: AuditSink;
  readonly metrics: AuditMetrics;
  /** Writes or sends what the backends still hold. */
  shutdown(): Promise<void>;
}

export function auditing(policy: PolicyEvaluator, backend: AuditBackend, metrics: AuditMetrics): Auditing {
  return {
    policy,
    metrics,
    sink: {
      process(record) {
        metrics.event();
        return backend.processEvents([record]);
      },
    },
    shutdown: () => backend.shutdown(),
  };
}
