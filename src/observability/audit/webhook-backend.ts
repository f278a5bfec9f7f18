// The webhook backend (--audit-webhook-config-file): each batch of events is POSTed as one
// audit.k8s.io/v1 EventList. How it is sent (the kubeconfig's connection, retries with backoff on
// any failure, as upstream retries every error) is the caller's `send`.
import type { AuditBackend, PluginErrors } from "./backend.js";
import { eventApiVersion, type AuditEventRecord } from "./event-record.js";

/** POSTs one EventList body; rejects when it could not be delivered, retries included. */
export type WebhookSend = (body: Buffer) => Promise<void>;

export class WebhookBackend implements AuditBackend {
  readonly name = "webhook";

  constructor(
    private readonly send: WebhookSend,
    private readonly errors: PluginErrors,
  ) {}

  processEvents(events: readonly AuditEventRecord[]): Promise<boolean> {
    const body = Buffer.from(`{"kind":"EventList","apiVersion":"${eventApiVersion}","metadata":{},"items":[${events.map((e) => e.json).join(",")}]}`);
    return this.send(body).then(
      () => true,
      (e: Error) => {
        this.errors(this.name, e, events);
        return false;
      },
    );
  }

  async shutdown(): Promise<void> {}
}
