// A /metrics page read by a real Prometheus text parser (parse-prometheus-text-format, which
// throws on a malformed line). That parser folds every series of a labelled histogram into one
// bucket map, dropping their labels, sums and counts; so the page is parsed a second time with
// the histograms' TYPE lines left out, which gives each of their samples with its own labels.
import parsePrometheusTextFormat from "parse-prometheus-text-format";

export interface MetricFamily {
  name: string;
  help: string;
  type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
  /** A histogram's bucket bounds as written (`le`), +Inf last. */
  buckets?: string[];
}

export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricsPage {
  families: Map<string, MetricFamily>;
  /** Every sample (a histogram's as name_bucket / name_sum / name_count), with its labels. */
  samples: MetricSample[];
  /** The samples of `name` whose labels include `labels`. */
  find(name: string, labels?: Record<string, string>): MetricSample[];
}

/** A sample value as the text format writes it ("+Inf" included). */
const number = (v: string) => (v === "+Inf" ? Infinity : v === "-Inf" ? -Infinity : Number(v));

export function parseMetricsPage(text: string): MetricsPage {
  const families = new Map<string, MetricFamily>();
  for (const f of parsePrometheusTextFormat(text)) {
    if (families.has(f.name)) throw new Error(`family ${f.name} appears twice on the page`);
    const family: MetricFamily = { name: f.name, help: f.help, type: f.type };
    if (f.type === "HISTOGRAM") family.buckets = Object.keys(f.metrics[0]?.buckets ?? {}).sort((a, b) => number(a) - number(b));
    families.set(f.name, family);
  }
  const untyped = text.split("\n").filter((l) => !/^# TYPE \S+ histogram$/.test(l)).join("\n");
  const samples: MetricSample[] = [];
  for (const f of parsePrometheusTextFormat(untyped)) {
    for (const m of f.metrics) {
      if (m.value !== undefined) samples.push({ name: f.name, labels: m.labels ?? {}, value: number(m.value) });
      // A summary keeps its sum and count apart from its samples.
      if (m.count !== undefined) samples.push({ name: `${f.name}_count`, labels: m.labels ?? {}, value: number(m.count) });
      if (m.sum !== undefined) samples.push({ name: `${f.name}_sum`, labels: m.labels ?? {}, value: number(m.sum) });
    }
  }
  return {
    families,
    samples,
    find: (name, labels = {}) => samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)),
  };
}
