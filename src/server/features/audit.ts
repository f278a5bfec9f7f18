// Auditing (--audit-policy-file and the --audit-log-* / --audit-webhook-* backends): the policy
// and the backends read at set-up (a bad policy, log path or webhook file refuses the start), the
// request path's audit stage given them (server/filters/audit.ts), the audit metrics registered
// whether or not anything is audited, and the backends drained when the server stops. As
// upstream, a backend without a policy records nothing, and a policy without a backend neither.
import { auditing, type Auditing } from "../../observability/audit/auditing.js";
import { unionBackend, type AuditBackend } from "../../observability/audit/backend.js";
import { AuditMetrics } from "../../observability/audit/metrics.js";
import { loadPolicyFile } from "../../observability/audit/policy-file.js";
import { PolicyEvaluator } from "../../observability/audit/policy.js";
import { logBackend, webhookBackend } from "./audit-backends.js";
import { auditFlags, auditFlagsOf, checkAuditFlags } from "./audit-flags.js";
import type { FeatureModule } from "./feature-module.js";

export function auditFeature(): FeatureModule {
  return {
    name: "audit",
    flags: auditFlags,
    checkFlags: (o) => checkAuditFlags(auditFlagsOf(o)),
    setup: ({ options, log }) => {
      const f = auditFlagsOf(options);
      const report = (m: string) => process.stderr.write(`kapi: ${m}\n`);
      const metrics = new AuditMetrics(report);
      const policy = f.policyFile ? new PolicyEvaluator(loadPolicyFile(f.policyFile, (w) => report(`warning: ${w}`))) : undefined;
      const backends: AuditBackend[] = [];
      for (const [on, name, make] of [
        [f.logPath !== "", "log", () => logBackend(f, metrics.pluginError, report)],
        [f.webhookConfigFile !== "", "webhook", () => webhookBackend(f, metrics.pluginError)],
      ] as const) {
        if (!on) continue;
        if (policy) backends.push(make());
        else log(`kapi: no audit policy file provided, no events will be recorded for the ${name} backend`);
      }
      const audit: Auditing | undefined = policy && backends.length > 0 ? auditing(policy, unionBackend(backends), metrics) : undefined;
      return { ...(audit ? { audit } : {}), registerMetrics: (m) => metrics.register(m) };
    },
  };
}
