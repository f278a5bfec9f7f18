// The value transformation families of kube-apiserver 1.34 (apiserver/pkg/storage/value): each
// transformation of a stored value (encryption at rest) counted by resource, direction, the
// prefix of the transformer that made it and its status, and the latency of those that worked.
import { CounterFamily, HistogramFamily, exponentialBuckets } from "./metric-family.js";

/** What a failed transformation's status label says: upstream's for an error that is not a gRPC status. */
const nonGrpcError = "unknown-non-grpc";

export class TransformationMetrics {
  readonly latency = new HistogramFamily({
    name: "apiserver_storage_transformation_duration_seconds",
    help: "How long value transformations (to and from storage) took, in seconds, by direction and transformer prefix.",
    stability: "ALPHA",
    labels: ["transformation_type", "transformer_prefix"],
    buckets: exponentialBuckets(5e-6, 2, 25),
  });
  readonly operations = new CounterFamily({
    name: "apiserver_storage_transformation_operations_total",
    help: "Value transformations, by resource, direction (to_storage: encryption, from_storage: decryption), transformer prefix and status (OK, or why it failed).",
    stability: "ALPHA",
    labels: ["resource", "transformation_type", "transformer_prefix", "status"],
  });
  readonly families = [this.latency, this.operations];

  /** One transformation of a value of `resource` ("resource.group", "resource" for the core group). */
  observe(resource: string, type: string, prefix: string, seconds: number, failed: boolean): void {
    this.operations.with(resource, type, prefix, failed ? nonGrpcError : "OK").inc();
    if (!failed) this.latency.with(type, prefix).observe(seconds);
  }
}
