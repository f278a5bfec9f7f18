// The truncating backend (--audit-<backend>-truncate-enabled; upstream: plugin/pkg/audit/truncate),
// in front of a backend and its mode. An event larger than the maximum event size (as the json
// log line measures it) loses its request and response objects and is marked with the annotation
// audit.k8s.io/truncated: "true" — when its level recorded any (Request and above); one still too
// large is dropped and reported as the "truncate" plugin's error. The events of one call go on in
// batches of at most the maximum batch size, each batch as soon as the next would overflow it.
import type { AuditBackend, PluginErrors } from "./backend.js";
import type { AuditEventRecord } from "./event-record.js";
import { atLeast } from "./types.js";

export interface TruncateConfig {
  /** Bytes an event may have. */
  maxEventSize: number;
  /** Bytes the events handed on together may have. */
  maxBatchSize: number;
}

/** Upstream's defaults: 100 KiB events, 10 MiB batches. */
export const truncateDefaults: TruncateConfig = { maxEventSize: 100 * 1024, maxBatchSize: 10 * 1024 * 1024 };

const pluginName = "truncate";
const annotationKey = "audit.k8s.io/truncated";
const annotationValue = "true";

export class TruncatingBackend implements AuditBackend {
  readonly name: string;

  constructor(
    private readonly delegate: AuditBackend,
    private readonly c: TruncateConfig,
    private readonly errors: PluginErrors,
  ) {
    this.name = `${pluginName}<${delegate.name}>`;
  }

  processEvents(events: readonly AuditEventRecord[]): boolean | Promise<boolean> {
    const results: (boolean | Promise<boolean>)[] = [];
    let dropped: AuditEventRecord[] | undefined;
    let batch: AuditEventRecord[] = [];
    let batchSize = 0;
    for (let event of events) {
      let size = event.encodedSize();
      if (size > this.c.maxEventSize && atLeast(event.level, "Request")) {
        event = event.withoutBodies(annotationKey, annotationValue);
        size = event.encodedSize();
      }
      if (size > this.c.maxEventSize) {
        (dropped ??= []).push(event);
        continue;
      }
      if (batch.length > 0 && batchSize + size > this.c.maxBatchSize) {
        results.push(this.delegate.processEvents(batch));
        batch = [];
        batchSize = 0;
      }
      batchSize += size;
      batch.push(event);
    }
    if (batch.length > 0) results.push(this.delegate.processEvents(batch));
    // One error per event, aggregated as upstream's utilerrors.NewAggregate writes them.
    if (dropped) this.errors(pluginName, new Error(aggregate(dropped.map(() => "event is too large even after truncating"))), dropped);
    // Only what the delegate said counts: a dropped event does not fail the request (as upstream).
    if (results.every((r) => typeof r === "boolean")) return results.every((r) => r);
    return Promise.all(results).then((all) => all.every((r) => r));
  }

  shutdown(): Promise<void> {
    return this.delegate.shutdown();
  }
}

/** utilerrors.NewAggregate(errs).Error(): the one message, else the distinct messages in brackets. */
function aggregate(messages: readonly string[]): string {
  const distinct = [...new Set(messages)];
  return distinct.length === 1 ? distinct[0]! : `[${distinct.join(", ")}]`;
}
