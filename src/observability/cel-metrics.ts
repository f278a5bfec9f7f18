// The CEL families of kube-apiserver 1.34 (apiserver/pkg/cel/metrics): how long compiling and
// evaluating custom resources' validation rules took, per schema node (upstream times each node's
// Compile and each Validator.validate call). Fed through the CEL engine's CelTimings (by shape).
// Upstream declares both without buckets of their own: client_golang's defaults.
import { HistogramFamily, defaultBuckets, type HistogramCell } from "./metric-family.js";

export class CelMetrics {
  readonly compilation = new HistogramFamily({ name: "apiserver_cel_compilation_duration_seconds", help: "How long compiling CEL expressions took, in seconds.", stability: "BETA", buckets: defaultBuckets });
  readonly evaluation = new HistogramFamily({ name: "apiserver_cel_evaluation_duration_seconds", help: "How long evaluating CEL expressions took, in seconds.", stability: "BETA", buckets: defaultBuckets });
  readonly families = [this.compilation, this.evaluation];
  private readonly compiledCell: HistogramCell = this.compilation.with();
  private readonly evaluatedCell: HistogramCell = this.evaluation.with();

  compiled(seconds: number): void {
    this.compiledCell.observe(seconds);
  }

  evaluated(seconds: number): void {
    this.evaluatedCell.observe(seconds);
  }
}
