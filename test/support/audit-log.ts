// Test support: a server's audit log. A policy file and a log path in a fresh directory, the
// options that start a server with them, and the log read back as the events it holds. The log
// backend writes each event before the response it records is finished, so a test reads it right
// after the response.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StartOptions } from "../../src/index.js";

export interface AuditLog {
  /** The server options that audit into this log (merge them into startServer's `options`). */
  options: NonNullable<StartOptions["options"]>;
  dir: string;
  path: string;
  policyFile: string;
  /** Every event written so far, in order. */
  events(): any[];
  /** The ResponseComplete event of the `verb` of `resource` `namespace/name` (the last one). */
  completed(verb: string, resource: string, namespace: string, name: string): any;
}

/** An audit log of `policy` (a Policy's fields, or the file's text); by default everything at Metadata. */
export function auditLog(policy: string | Record<string, unknown> = { rules: [{ level: "Metadata" }] }, extra: Record<string, unknown> = {}): AuditLog {
  const dir = mkdtempSync(join(tmpdir(), "kapi-audit-"));
  const policyFile = join(dir, "policy.yaml");
  writeFileSync(policyFile, typeof policy === "string" ? policy : JSON.stringify({ apiVersion: "audit.k8s.io/v1", kind: "Policy", ...policy }));
  const path = join(dir, "audit.log");
  const events = () =>
    readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l));
  return {
    options: { audit: { policyFile, logPath: path, ...extra } },
    dir,
    path,
    policyFile,
    events,
    completed: (verb, resource, namespace, name) =>
      events()
        .filter((e) => e.stage === "ResponseComplete" && e.verb === verb && e.objectRef?.resource === resource && (e.objectRef?.namespace ?? "") === namespace && e.objectRef?.name === name)
        .at(-1),
  };
}
