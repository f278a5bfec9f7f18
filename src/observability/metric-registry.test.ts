import { describe, expect, it } from "vitest";
import { CounterFamily } from "./metric-family.js";
import { MetricRegistry, showHiddenMetricsVersionError } from "./metric-registry.js";

const families = () => [
  new CounterFamily({ name: "current_total", help: "h", stability: "STABLE" }),
  new CounterFamily({ name: "deprecated_now_total", help: "h", stability: "ALPHA", deprecatedVersion: "1.34.0" }),
  new CounterFamily({ name: "deprecated_before_total", help: "h", stability: "ALPHA", deprecatedVersion: "1.27.0" }),
];

describe("metric registry", () => {
  it("hides what was deprecated before this release; notes what is deprecated in it", async () => {
    const r = new MetricRegistry({ version: "v1.34.0" });
    r.register(...families());
    const text = await r.render();
    expect(text).toContain("# HELP current_total [STABLE] h\n");
    expect(text).toContain("# HELP deprecated_now_total [ALPHA] (Deprecated since 1.34.0) h\n");
    expect(text).not.toContain("deprecated_before_total");
    expect(text).toContain("hidden_metrics_total 1\n");
    expect(text).toContain('registered_metrics_total{deprecated_version="1.34.0",stability_level="ALPHA"} 1\n');
    expect(text).toContain('registered_metrics_total{deprecated_version="",stability_level="STABLE"} 1\n');
  });

  it("--show-hidden-metrics-for-version shows the hidden ones, noted as deprecated", async () => {
    const r = new MetricRegistry({ version: "v1.34.0", showHiddenMetricsForVersion: "1.33" });
    r.register(...families());
    const text = await r.render();
    expect(text).toContain("# HELP deprecated_before_total [ALPHA] (Deprecated since 1.27.0) h\n");
    expect(text).toContain("hidden_metrics_total 0\n");
  });

  it("--disabled-metrics wins over showing hidden ones", async () => {
    const r = new MetricRegistry({ version: "v1.34.0", showHiddenMetricsForVersion: "1.33", disabledMetrics: ["current_total", "deprecated_before_total"] });
    r.register(...families());
    const text = await r.render();
    expect(text).not.toMatch(/^current_total/m);
    expect(text).not.toContain("deprecated_before_total");
    expect(text).toContain("disabled_metrics_total 2\n");
    expect(text).toContain("hidden_metrics_total 2\n");
  });

  it("accepts only the previous minor release for --show-hidden-metrics-for-version", () => {
    expect(showHiddenMetricsVersionError("v1.34.0", "")).toBeUndefined();
    expect(showHiddenMetricsVersionError("v1.34.0", "1.33")).toBeUndefined();
    expect(showHiddenMetricsVersionError("v1.34.0", "1.32")).toBe("--show-hidden-metrics-for-version must be omitted or have the value '1.33'. Only the previous minor version is allowed");
  });

  it("refuses a name registered twice", () => {
    const r = new MetricRegistry({ version: "v1.34.0" });
    r.register(new CounterFamily({ name: "a", help: "h" }));
    expect(() => r.register(new CounterFamily({ name: "a", help: "h" }))).toThrow(/registered twice/);
  });

  it("writes families in name order, collecting first", async () => {
    const r = new MetricRegistry({ version: "v1.34.0" });
    let n = 0;
    const late = new CounterFamily({ name: "zz_total", help: "h", collect: () => void (n = 5) });
    r.register(late, new CounterFamily({ name: "aa_total", help: "h" }));
    const text = await r.render();
    expect(n).toBe(5);
    const names = [...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]);
    expect(names).toEqual([...names].sort());
  });
});
