// An audit backend for unit tests: keeps every event (parsed back from its JSON) in order.
import { auditing, type Auditing } from "./auditing.js";
import type { AuditBackend } from "./backend.js";
import type { AuditEventRecord } from "./event-record.js";
import { AuditMetrics } from "./metrics.js";
import { PolicyEvaluator } from "./policy.js";
import type { Policy } from "./types.js";

export interface MemoryBackend extends AuditBackend {
  readonly records: AuditEventRecord[];
  /** The events as JSON objects. */
  events(): any[];
}

export function memoryBackend(onEvent?: (r: AuditEventRecord) => void): MemoryBackend {
  const records: AuditEventRecord[] = [];
  return {
    name: "memory",
    records,
    processEvents(events) {
      for (const e of events) {
        records.push(e);
        onEvent?.(e);
      }
      return true;
    },
    shutdown: async () => undefined,
    events: () => records.map((r) => JSON.parse(r.json)),
  };
}

/** Auditing with `policy` (default: everything at `level`) into a memory backend. */
export function memoryAuditing(policy: Policy | Policy["rules"][number]["level"] = "Metadata", onEvent?: (r: AuditEventRecord) => void): Auditing & { backend: MemoryBackend } {
  const backend = memoryBackend(onEvent);
  const p = typeof policy === "string" ? { rules: [{ level: policy }] } : policy;
  return { ...auditing(new PolicyEvaluator(p), backend, new AuditMetrics(() => undefined)), backend };
}
