// The request families of kube-apiserver 1.34 (apiserver/pkg/endpoints/metrics): requests by
// verb, resource, scope and code; their latency (all of it, and the part the server answers for:
// without webhooks and priority-and-fairness queueing); read response sizes; what is in flight.
import { KindWatermark } from "./kind-watermark.js";
import { CounterFamily, GaugeFamily, HistogramFamily, exponentialBuckets, type CounterCell, type GaugeCell, type HistogramCell } from "./metric-family.js";

const requestLabels = ["verb", "group", "version", "resource", "subresource", "scope", "component"] as const;
const latencyBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
const sliBuckets = [0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
const sliHelp = "How long requests took to answer, in seconds, leaving out the time spent in admission webhooks and priority-and-fairness queues; by verb, group, version, resource, subresource, scope and component.";

/** A request's labels as upstream reports them (verb already normalised: LIST, WATCH, APPLY, CONNECT, ...). */
export interface RequestLabels {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
}

/** Where one kind of request (labels and dry run) records; looked up once per request. */
export class RequestSeries {
  private readonly byCode = new Map<number, CounterCell>();
  constructor(
    private readonly total: CounterFamily,
    private readonly values: readonly string[],
    readonly duration: HistogramCell,
    readonly sli: HistogramCell,
    readonly slo: HistogramCell | undefined,
    readonly responseSize: HistogramCell | undefined,
    readonly longRunning: GaugeCell,
    readonly readOnly: boolean,
    /** The labels the series was made for (its request counts, terminations, self-requests). */
    readonly labels: RequestLabels,
  ) {}

  code(code: number): CounterCell {
    let c = this.byCode.get(code);
    if (!c) this.byCode.set(code, (c = this.total.with(...this.values, String(code))));
    return c;
  }
}

const readOnlyVerbs = new Set(["GET", "LIST", "WATCH"]);

export class RequestMetrics {
  readonly total = new CounterFamily({
    name: "apiserver_request_total",
    help: "Requests answered, by verb, dry-run value, group, version, resource, subresource, scope, component and HTTP status code.",
    stability: "STABLE",
    labels: ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"],
  });
  readonly duration = new HistogramFamily({
    name: "apiserver_request_duration_seconds",
    help: "How long requests took to answer, in seconds, by verb, dry-run value, group, version, resource, subresource, scope and component.",
    stability: "STABLE",
    labels: ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"],
    buckets: latencyBuckets,
  });
  readonly sli = new HistogramFamily({ name: "apiserver_request_sli_duration_seconds", help: sliHelp, stability: "ALPHA", labels: requestLabels, buckets: sliBuckets });
  readonly slo = new HistogramFamily({ name: "apiserver_request_slo_duration_seconds", help: sliHelp, stability: "ALPHA", deprecatedVersion: "1.27.0", labels: requestLabels, buckets: sliBuckets });
  readonly responseSizes = new HistogramFamily({
    name: "apiserver_response_sizes",
    help: "Size in bytes of the bodies of read responses, by verb, group, version, resource, subresource, scope and component.",
    stability: "STABLE",
    labels: requestLabels,
    buckets: exponentialBuckets(1000, 10, 7),
  });
  readonly longRunning = new GaugeFamily({
    name: "apiserver_longrunning_requests",
    help: "Long-running requests (watches, connections) open now, by verb, group, version, resource, subresource, scope and component.",
    stability: "STABLE",
    labels: requestLabels,
  });
  readonly inflight = new GaugeFamily({
    name: "apiserver_current_inflight_requests",
    help: "The most requests in flight at once during the last second, per kind of request (readOnly or mutating).",
    stability: "STABLE",
    labels: ["request_kind"],
    collect: () => this.publishInflight(),
  });
  readonly terminations = new CounterFamily({
    name: "apiserver_request_terminations_total",
    help: "Requests the server ended itself to protect itself (timed out, or refused by flow control), by verb, group, version, resource, subresource, scope, component and HTTP status code.",
    stability: "ALPHA",
    labels: ["verb", "group", "version", "resource", "subresource", "scope", "component", "code"],
  });
  readonly families = [this.total, this.duration, this.sli, this.slo, this.responseSizes, this.longRunning, this.inflight, this.terminations];

  /** By verb, group, version, resource, subresource, scope, dry run, component: a key string built per request would be hashed per request. */
  private readonly series: LabelTree = new Map();
  /** Requests in flight, and the most seen at once in about the last second (upstream's watermark). */
  private readonly inFlight = new KindWatermark();

  constructor() {
    for (const kind of ["readOnly", "mutating"]) this.inflight.with(kind);
  }

  /** The series of a request; `component` is "apiserver" for resource requests. */
  seriesOf(l: RequestLabels, dryRun: string, component: string): RequestSeries {
    return this.seriesFor(l.verb, l.group, l.version, l.resource, l.subresource, l.scope, dryRun, component);
  }

  /** seriesOf() by the label values themselves: a request finds its series without an object of labels. */
  seriesFor(verb: string, group: string, version: string, resource: string, subresource: string, scope: string, dryRun: string, component: string): RequestSeries {
    const byComponent = branch(branch(branch(branch(branch(branch(branch(this.series, verb), group), version), resource), subresource), scope), dryRun);
    let s = byComponent.get(component) as RequestSeries | undefined;
    if (!s) {
      const l: RequestLabels = { verb, group, version, resource, subresource, scope };
      const values = [l.verb, l.group, l.version, l.resource, l.subresource, l.scope, component];
      const withDryRun = [l.verb, dryRun, l.group, l.version, l.resource, l.subresource, l.scope, component];
      s = new RequestSeries(
        this.total,
        withDryRun,
        this.duration.with(...withDryRun),
        this.sli.with(...values),
        this.slo.hidden ? undefined : this.slo.with(...values),
        l.verb === "GET" || l.verb === "LIST" ? this.responseSizes.with(...values) : undefined,
        this.longRunning.with(...values),
        readOnlyVerbs.has(l.verb),
        l,
      );
      byComponent.set(component, s);
    }
    return s;
  }

  /** A request began: long-running ones (watch, connect) are counted apart from those in flight. */
  started(s: RequestSeries, longRunning: boolean, atMs: number): void {
    if (longRunning) {
      s.longRunning.inc();
      return;
    }
    this.inFlight.up(s.readOnly ? "readOnly" : "mutating", atMs);
  }

  /**
   * A request ended with `code` after `seconds`, `excludedSeconds` of which were spent in
   * webhooks and flow-control queues (left out of the SLI), having written `bytes` of body.
   */
  finished(s: RequestSeries, longRunning: boolean, code: number, seconds: number, excludedSeconds: number, bytes: number): void {
    if (longRunning) s.longRunning.dec();
    else this.inFlight.down(s.readOnly ? "readOnly" : "mutating");
    s.code(code).inc();
    s.duration.observe(seconds);
    const sli = seconds - excludedSeconds;
    s.sli.observe(sli);
    s.slo?.observe(sli);
    s.responseSize?.observe(bytes);
  }

  /**
   * A request the server ended in self-defence (upstream's RecordRequestTermination). A
   * non-resource request is labelled by its path in place of a subresource, and every one with the
   * component "apiserver", as upstream labels them.
   */
  terminated(l: RequestLabels, path: string | undefined, code: number): void {
    this.terminations.with(l.verb, l.group, l.version, l.resource, path ?? l.subresource, l.scope, "apiserver", String(code)).inc();
  }

  private publishInflight(): void {
    const at = performance.now();
    for (const k of ["readOnly", "mutating"] as const) this.inflight.with(k).set(this.inFlight.peak(k, at));
  }
}

/** Label values to the next level of values, the last level to its series. */
type LabelTree = Map<string, LabelTree | RequestSeries>;

function branch(tree: LabelTree, value: string): LabelTree {
  let next = tree.get(value) as LabelTree | undefined;
  if (next === undefined) tree.set(value, (next = new Map()));
  return next;
}
