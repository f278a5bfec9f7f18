import { describe, expect, it } from "vitest";
import { CounterFamily, GaugeFamily, HistogramFamily, SummaryFamily, exponentialBuckets, goFloat } from "./metric-family.js";

describe("goFloat", () => {
  it("writes numbers as Go's FormatFloat(v, 'g', -1, 64)", () => {
    expect([0, 1, 0.005, 0.0001, 1e-5, 5e-6, 100000, 1e6, 45678592, 1.5, 1e9, 16.384].map(goFloat)).toEqual(["0", "1", "0.005", "0.0001", "1e-05", "5e-06", "100000", "1e+06", "4.5678592e+07", "1.5", "1e+09", "16.384"]);
    expect([Infinity, -Infinity, NaN].map(goFloat)).toEqual(["+Inf", "-Inf", "NaN"]);
  });

  it("makes client_golang's exponential buckets", () => {
    expect(exponentialBuckets(1000, 10, 7).map(goFloat)).toEqual(["1000", "10000", "100000", "1e+06", "1e+07", "1e+08", "1e+09"]);
    expect(exponentialBuckets(0.001, 2, 15).at(-1)).toBeCloseTo(16.384);
  });
});

describe("metric families", () => {
  it("write HELP with the stability level, labels in name order, escaped", () => {
    const c = new CounterFamily({ name: "x_total", help: "What\nit counts \\ here.", stability: "STABLE", labels: ["verb", "code"] });
    c.with("GET", "200").inc();
    c.with('a"b\\c\nd', "500").inc(2);
    expect(c.render()).toBe(['# HELP x_total [STABLE] What\\nit counts \\\\ here.', "# TYPE x_total counter", 'x_total{code="200",verb="GET"} 1', 'x_total{code="500",verb="a\\"b\\\\c\\nd"} 2', ""].join("\n"));
  });

  it("a vector without series writes nothing; a plain counter or gauge writes 0", () => {
    expect(new GaugeFamily({ name: "g", help: "h", stability: "ALPHA", labels: ["a"] }).render()).toBe("");
    expect(new CounterFamily({ name: "c", help: "h", stability: "BETA" }).render()).toBe("# HELP c [BETA] h\n# TYPE c counter\nc 0\n");
  });

  it("histograms write cumulative buckets with le last, then sum and count", () => {
    const h = new HistogramFamily({ name: "h_seconds", help: "h", stability: "ALPHA", labels: ["verb"], buckets: [0.1, 1] });
    const s = h.with("GET");
    for (const v of [0.05, 0.1, 0.5, 3]) s.observe(v);
    expect(h.render().split("\n").slice(2, -1)).toEqual(['h_seconds_bucket{verb="GET",le="0.1"} 2', 'h_seconds_bucket{verb="GET",le="1"} 3', 'h_seconds_bucket{verb="GET",le="+Inf"} 4', 'h_seconds_sum{verb="GET"} 3.65', 'h_seconds_count{verb="GET"} 4']);
    const plain = new HistogramFamily({ name: "p", help: "h", buckets: [1] });
    expect(plain.render()).toBe('# HELP p h\n# TYPE p histogram\np_bucket{le="1"} 0\np_bucket{le="+Inf"} 0\np_sum 0\np_count 0\n');
  });

  it("summaries without objectives write sum and count only", () => {
    const s = new SummaryFamily({ name: "s", help: "h", stability: "ALPHA", labels: ["type"] });
    s.with("admit").observe(2);
    expect(s.render()).toBe('# HELP s [ALPHA] h\n# TYPE s summary\ns_sum{type="admit"} 2\ns_count{type="admit"} 1\n');
  });

  it("keeps one series per label values and refuses the wrong number of them", () => {
    const g = new GaugeFamily({ name: "g", help: "h", labels: ["a", "b"] });
    expect(g.with("1", "2")).toBe(g.with("1", "2"));
    expect(() => g.with("1")).toThrow(/1 label values for 2 labels/);
  });
});
