import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TimingRatioHistogramFamily } from "./timing-ratio-histogram.js";

describe("timing ratio histogram", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["performance"] }));
  afterEach(() => vi.useRealTimers());

  it("weighs each ratio by the nanoseconds it was held, credited when it changes and when scraped", () => {
    const f = new TimingRatioHistogramFamily({ name: "x_utilization", help: "Share in use", stability: "ALPHA", labels: ["level"], buckets: [0, 0.5, 1] });
    const cell = f.with("a");
    cell.setDenominator(4);
    vi.advanceTimersByTime(2); // 2 ms at 0/4
    cell.set(2);
    vi.advanceTimersByTime(1); // 1 ms at 2/4
    cell.set(2); // unchanged: nothing credited yet
    vi.advanceTimersByTime(1); // still 2/4
    cell.add(2);
    vi.advanceTimersByTime(3); // 3 ms at 4/4, credited by the scrape
    expect(f.render()).toBe(
      [
        "# HELP x_utilization EXPERIMENTAL: [ALPHA] Share in use",
        "# TYPE x_utilization histogram",
        'x_utilization_bucket{level="a",le="0"} 2e+06',
        'x_utilization_bucket{level="a",le="0.5"} 4e+06',
        'x_utilization_bucket{level="a",le="1"} 7e+06',
        'x_utilization_bucket{level="a",le="+Inf"} 7e+06',
        'x_utilization_sum{level="a"} 4e+06',
        'x_utilization_count{level="a"} 7e+06',
        "",
      ].join("\n"),
    );
  });
});
