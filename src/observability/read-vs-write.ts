// apiserver_flowcontrol_read_vs_write_current_requests, apart from the other flow-control
// families: upstream feeds it from whichever flow control the server runs, priority and
// fairness (waiting and executing) or, with that turned off, the max-in-flight limit (executing).
import { TimingRatioHistogramFamily } from "./timing-ratio-histogram.js";

export function readVsWriteFamily(): TimingRatioHistogramFamily {
  return new TimingRatioHistogramFamily({
    name: "apiserver_flowcontrol_read_vs_write_current_requests",
    help: "Observations, at the end of every nanosecond, of the read-only and mutating requests waiting or executing, as a share of all queues' room or of all seats",
    stability: "ALPHA",
    labels: ["phase", "request_kind"],
    buckets: [0, 0.001, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1],
  });
}
