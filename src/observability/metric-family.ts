// Metric families as kube-apiserver exports them (component-base's metrics over client_golang),
// written out in the Prometheus text format (0.0.4).
//
// Not prom-client: a request records into ten-odd series, and prom-client hashes and checks the
// label object on every call (microseconds each, as much as the rest of a GET costs). Here a
// series is looked up once by its label values and kept by the caller; recording is a number
// added. HELP carries the stability level ("[STABLE] ...") and deprecation note as upstream's.

export type StabilityLevel = "ALPHA" | "BETA" | "STABLE";

export interface FamilyOptions {
  name: string;
  help: string;
  /** Absent for raw collectors (the process families), whose HELP upstream leaves unannotated. */
  stability?: StabilityLevel;
  /** The release that deprecated it ("1.27.0"): noted in HELP, hidden one minor release later. */
  deprecatedVersion?: string;
  labels?: readonly string[];
  /** Run before each scrape (gauges read at scrape time). */
  collect?: () => void | Promise<void>;
}

type MetricType = "counter" | "gauge" | "histogram" | "summary";

/** A series' label pairs as written between the braces, labels in name order (client_golang's). */
function labelText(names: readonly string[], order: readonly number[], values: readonly string[]): string {
  let s = "";
  for (const i of order) s += `${s ? "," : ""}${names[i]}="${escapeLabel(values[i]!)}"`;
  return s;
}

const escapeLabel = (v: string) => (/[\\"\n]/.test(v) ? v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n") : v);
const escapeHelp = (v: string) => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");

/**
 * A number as Go's strconv.FormatFloat(v, 'g', -1, 64) writes it (client_golang's text format):
 * the shortest digits, in exponent form below 1e-4 and from 1e6 on ("1e+06", "4.5678592e+07").
 */
export function goFloat(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  const [mantissa, exp] = v.toExponential().split("e") as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 6) return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  return String(v);
}

export abstract class Family<S> {
  readonly type: MetricType;
  readonly name: string;
  readonly help: string;
  readonly stability: StabilityLevel | undefined;
  readonly deprecatedVersion: string | undefined;
  readonly labels: readonly string[];
  readonly collect: (() => void | Promise<void>) | undefined;
  /** Set by the registry: not exported (deprecated past its release, or disabled). */
  hidden = false;
  /** Set by the registry: deprecated and shown, HELP says since when. */
  deprecated = false;
  private readonly order: number[];
  private readonly series = new Map<string, { text: string; cell: S }>();

  constructor(
    type: MetricType,
    o: FamilyOptions,
    private readonly newCell: () => S,
  ) {
    this.type = type;
    this.name = o.name;
    this.help = o.help;
    this.stability = o.stability;
    this.deprecatedVersion = o.deprecatedVersion;
    this.labels = o.labels ?? [];
    this.collect = o.collect;
    this.order = this.labels.map((_, i) => i).sort((a, b) => (this.labels[a]! < this.labels[b]! ? -1 : 1));
    // Without labels the one series always exists (client_golang exports a plain counter at 0).
    if (this.labels.length === 0) this.with();
  }

  /** The series of these label values (in `labels` order), made on first use; keep it to record into. */
  with(...values: string[]): S {
    const key = values.length === 1 ? values[0]! : values.join("\u0000");
    let s = this.series.get(key);
    if (!s) {
      if (values.length !== this.labels.length) throw new Error(`${this.name}: ${values.length} label values for ${this.labels.length} labels`);
      s = { text: labelText(this.labels, this.order, values), cell: this.newCell() };
      this.series.set(key, s);
    }
    return s.cell;
  }

  /** Forgets every series (a gauge set afresh at each scrape). */
  reset(): void {
    this.series.clear();
    if (this.labels.length === 0) this.with();
  }

  /** HELP as upstream writes it: "[LEVEL] (Deprecated since X) text". */
  annotatedHelp(): string {
    const help = this.deprecated ? `(Deprecated since ${this.deprecatedVersion}) ${this.help}` : this.help;
    return this.stability ? `[${this.stability}] ${help}` : help;
  }

  /** The family in the text format; nothing when it has no series (as client_golang's vectors). */
  render(): string {
    if (this.series.size === 0) return "";
    const out = [`# HELP ${this.name} ${escapeHelp(this.annotatedHelp())}`, `# TYPE ${this.name} ${this.type}`];
    const all = [...this.series.values()].sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
    for (const { text, cell } of all) this.renderCell(out, text, cell);
    return out.join("\n") + "\n";
  }

  protected abstract renderCell(out: string[], labels: string, cell: S): void;

  /** A histogram's cumulative buckets (from per-bucket counts, +Inf last), sum and count. */
  protected histogramLines(out: string[], labels: string, leText: readonly string[], counts: Float64Array, sum: number, count: number): void {
    let cumulative = 0;
    const sep = labels ? "," : "";
    for (let i = 0; i < leText.length; i++) {
      cumulative += counts[i]!;
      out.push(`${this.name}_bucket{${labels}${sep}le="${leText[i]}"} ${goFloat(cumulative)}`);
    }
    this.line(out, "_sum", labels, sum);
    this.line(out, "_count", labels, count);
  }

  protected line(out: string[], suffix: string, labels: string, value: number): void {
    out.push(`${this.name}${suffix}${labels ? `{${labels}}` : ""} ${goFloat(value)}`);
  }
}

export class CounterCell {
  value = 0;
  inc(by = 1): void {
    this.value += by;
  }
}

export class GaugeCell {
  value = 0;
  set(v: number): void {
    this.value = v;
  }
  inc(by = 1): void {
    this.value += by;
  }
  dec(by = 1): void {
    this.value -= by;
  }
}

export class CounterFamily extends Family<CounterCell> {
  constructor(o: FamilyOptions) {
    super("counter", o, () => new CounterCell());
  }
  protected renderCell(out: string[], labels: string, c: CounterCell): void {
    this.line(out, "", labels, c.value);
  }
}

export class GaugeFamily extends Family<GaugeCell> {
  constructor(o: FamilyOptions) {
    super("gauge", o, () => new GaugeCell());
  }
  protected renderCell(out: string[], labels: string, c: GaugeCell): void {
    this.line(out, "", labels, c.value);
  }
}

export class HistogramCell {
  /** Per bucket (not cumulative); the last counts what lies above the highest bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }
  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    this.counts[i]!++;
    this.sum += v;
    this.count++;
  }
}

export class HistogramFamily extends Family<HistogramCell> {
  readonly buckets: readonly number[];
  private readonly leText: readonly string[];
  constructor(o: FamilyOptions & { buckets: readonly number[] }) {
    const buckets = [...o.buckets];
    super("histogram", o, () => new HistogramCell(buckets));
    this.buckets = buckets;
    this.leText = [...buckets.map(goFloat), "+Inf"];
  }
  protected renderCell(out: string[], labels: string, c: HistogramCell): void {
    this.histogramLines(out, labels, this.leText, c.counts, c.sum, c.count);
  }
}

export class SummaryCell {
  sum = 0;
  count = 0;
  observe(v: number): void {
    this.sum += v;
    this.count++;
  }
}

/** A summary without objectives (component-base's default): only its sum and count. */
export class SummaryFamily extends Family<SummaryCell> {
  constructor(o: FamilyOptions) {
    super("summary", o, () => new SummaryCell());
  }
  protected renderCell(out: string[], labels: string, c: SummaryCell): void {
    this.line(out, "_sum", labels, c.sum);
    this.line(out, "_count", labels, c.count);
  }
}

/** client_golang's DefBuckets: what a histogram declared without buckets of its own gets. */
export const defaultBuckets: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** client_golang's ExponentialBuckets: `count` bounds from `start`, each `factor` times the last. */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const out = [start];
  while (out.length < count) out.push(out[out.length - 1]! * factor);
  return out;
}
