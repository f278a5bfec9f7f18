// What an audit backend is (upstream: audit.Backend) and the wrappers every backend can get: the
// union of several (log and webhook), and the modes of --audit-<backend>-mode: blocking (the
// request waits for the backend, whose failures are only counted), blocking-strict (a failure at
// RequestReceived fails the request) and batch (buffered, ./buffered.ts).
import type { AuditEventRecord } from "./event-record.js";

export interface AuditBackend {
  /** As upstream's metrics and error messages name it ("log", "webhook", "buffered<log>"). */
  readonly name: string;
  /**
   * Takes events in order. true: written or queued; false: lost (counted and logged already). A
   * promise when the caller must wait for the backend before answering the request.
   */
  processEvents(events: readonly AuditEventRecord[]): boolean | Promise<boolean>;
  /** Writes or sends what is still buffered; nothing is taken after. */
  shutdown(): Promise<void>;
}

/** Reports events a backend could not record (upstream: audit.HandlePluginError). */
export type PluginErrors = (plugin: string, err: Error, events: readonly AuditEventRecord[]) => void;

export type BackendMode = "batch" | "blocking" | "blocking-strict";
export const backendModes: readonly BackendMode[] = ["batch", "blocking", "blocking-strict"];

/** blocking: the caller still waits, but a failure does not fail the request. */
export function ignoringErrors(delegate: AuditBackend): AuditBackend {
  return {
    name: `ignoreErrors<${delegate.name}>`,
    processEvents(events) {
      const r = delegate.processEvents(events);
      return typeof r === "boolean" ? true : r.then(() => true);
    },
    shutdown: () => delegate.shutdown(),
  };
}

/** Every backend gets every event; stored only when all of them stored it. */
export function unionBackend(backends: readonly AuditBackend[]): AuditBackend {
  if (backends.length === 1) return backends[0]!;
  return {
    name: `union[${backends.map((b) => b.name).join(",")}]`,
    processEvents(events) {
      const results = backends.map((b) => b.processEvents(events));
      if (results.every((r) => typeof r === "boolean")) return results.every((r) => r);
      return Promise.all(results).then((all) => all.every((r) => r));
    },
    shutdown: async () => void (await Promise.all(backends.map((b) => b.shutdown()))),
  };
}
