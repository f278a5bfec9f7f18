// Requests to the storage backend, as kube-apiserver counts its etcd requests
// (etcd_request_duration_seconds, etcd_requests_total, etcd_request_errors_total by operation and
// the group and resource of the key). The SQLite backend has the same three under `sqlite_`.
import { CounterFamily, HistogramFamily, type CounterCell, type HistogramCell } from "./metric-family.js";

export interface StorageRequest {
  operation: string;
  group: string;
  resource: string;
  seconds: number;
  failed: boolean;
}

const latencyBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
const labels = ["operation", "group", "resource"];

export class StorageRequestMetrics {
  readonly latency: HistogramFamily;
  readonly total: CounterFamily;
  readonly errors: CounterFamily;
  readonly families: [HistogramFamily, CounterFamily, CounterFamily];
  private readonly series = new Map<string, [HistogramCell, CounterCell]>();

  /** `backend` names the families: "etcd" (upstream's) or "sqlite" (kapi's own, the same shape). */
  constructor(backend: "etcd" | "sqlite") {
    const what = backend === "etcd" ? "Etcd" : "SQLite";
    this.latency = new HistogramFamily({ name: `${backend}_request_duration_seconds`, help: `How long ${what} requests took, in seconds, by operation and the group and resource of the key.`, stability: "ALPHA", labels, buckets: latencyBuckets });
    this.total = new CounterFamily({ name: `${backend}_requests_total`, help: `${what} requests, by operation and the group and resource of the key.`, stability: "ALPHA", labels });
    this.errors = new CounterFamily({ name: `${backend}_request_errors_total`, help: `${what} requests that failed, by operation and the group and resource of the key.`, stability: "ALPHA", labels });
    this.families = [this.latency, this.total, this.errors];
  }

  observe(r: StorageRequest): void {
    const key = `${r.operation}|${r.group}|${r.resource}`;
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = [this.latency.with(r.operation, r.group, r.resource), this.total.with(r.operation, r.group, r.resource)]));
    s[0].observe(r.seconds);
    s[1].inc();
    // Only what failed has an error series (upstream makes it on the first error).
    if (r.failed) this.errors.with(r.operation, r.group, r.resource).inc();
  }
}
