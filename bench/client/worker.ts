// The load-client process. Forked by the bench driver so that generating load never competes
// with the driver's own work, and so its CPU use (reported with every result) shows whether the
// client, rather than the server, was the limit.
import { serveIpc } from "../core/child.js";
import { runClosed } from "./closed.js";
import { runList, runListVerify } from "./list.js";
import { runOpen } from "./open.js";
import type { BatchJob, BatchResult, RawRequest, RawResponse } from "./protocol.js";
import { openH2 } from "./transport.js";
import { runReplicaLatency } from "./replica-latency.js";
import { runWatch } from "./watch.js";

serveIpc({
  closed: runClosed,
  open: runOpen,
  list: runList,
  listVerify: runListVerify,
  watch: runWatch,
  replicaLatency: runReplicaLatency,
  async batch(j: BatchJob): Promise<BatchResult> {
    const c = await openH2(j.target);
    const statuses: Record<string, number> = {};
    let firstError: string | undefined;
    let next = 0;
    try {
      const lane = async () => {
        while (next < j.requests.length) {
          const q = j.requests[next++];
          try {
            const r = await c.request(q.method, q.path, q.body === undefined ? undefined : Buffer.from(q.body), true);
            statuses[r.status] = (statuses[r.status] ?? 0) + 1;
            if (r.status >= 300) firstError ??= `${q.method} ${q.path}: HTTP ${r.status}: ${r.body!.toString("utf8").slice(0, 300)}`;
          } catch (e) {
            statuses.error = (statuses.error ?? 0) + 1;
            firstError ??= `${q.method} ${q.path}: ${String(e)}`;
          }
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, j.concurrency) }, lane));
      return { statuses, firstError };
    } finally {
      c.close();
    }
  },
  async request(q: RawRequest): Promise<RawResponse> {
    const c = await openH2(q.target);
    try {
      const r = await c.request(q.method, q.path, q.body === undefined ? undefined : Buffer.from(q.body), true);
      return { status: r.status, contentType: r.contentType ?? "", body: new Uint8Array(r.body!) };
    } finally {
      c.close();
    }
  },
});
