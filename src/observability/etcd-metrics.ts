// kube-apiserver's etcd request metrics: etcd_request_duration_seconds, etcd_request_total and
// etcd_request_errors_total, labelled by operation and the group and resource of the key. They
// are registered once prom-client is loaded (ServerMetrics loads it after start-up); requests
// made before are recorded then.
import type { Counter, Histogram } from "prom-client";
import type { ServerMetrics } from "./metrics.js";

interface Observation {
  operation: string;
  group: string;
  resource: string;
  seconds: number;
  failed: boolean;
}

const latencyBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
/** Start-up writes are recorded, but not without bound should prom-client never load. */
const maxPending = 10_000;

export class EtcdRequestMetrics {
  private impl?: { latency: Histogram; total: Counter; errors: Counter };
  private pending: Observation[] = [];

  constructor(metrics: ServerMetrics) {
    metrics.addCollector((pc, registry) => {
      const labelNames = ["operation", "group", "resource"];
      const registers = [registry];
      this.impl = {
        latency: new pc.Histogram({ name: "etcd_request_duration_seconds", help: "Etcd request latency in seconds for each operation and object type.", labelNames, buckets: latencyBuckets, registers }),
        total: new pc.Counter({ name: "etcd_request_total", help: "Etcd request counts for each operation and object type.", labelNames, registers }),
        errors: new pc.Counter({ name: "etcd_request_errors_total", help: "Etcd failed request counts for each operation and object type.", labelNames, registers }),
      };
      for (const o of this.pending) this.record(o);
      this.pending = [];
    });
  }

  observe(o: Observation): void {
    if (this.impl) this.record(o);
    else if (this.pending.length < maxPending) this.pending.push(o);
  }

  private record(o: Observation): void {
    const labels = { operation: o.operation, group: o.group, resource: o.resource };
    this.impl!.latency.observe(labels, o.seconds);
    this.impl!.total.inc(labels);
    if (o.failed) this.impl!.errors.inc(labels);
  }
}
