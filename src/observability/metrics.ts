// Prometheus metrics of one server instance (its own registry: two servers in one process
// report only their own requests). Names and labels follow kube-apiserver's.
import type { Counter, Gauge, Histogram, Registry } from "prom-client";

type PromClient = typeof import("prom-client");

export interface RequestLabels {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
}

/**
 * The metrics of one server. prom-client is loaded after start-up (it costs tens of
 * milliseconds to import); what happens before is recorded once it is there.
 */
export class ServerMetrics {
  private impl?: PromMetrics;
  private loadedClient?: PromClient;
  private loading?: Promise<PromMetrics>;
  private pending: ((m: PromMetrics) => void)[] = [];
  private collectors: ((pc: PromClient, registry: Registry) => void)[] = [];

  constructor(private readonly countObjects: () => Promise<Map<string, number>>) {}

  load(): Promise<PromMetrics> {
    return (this.loading ??= import("prom-client").then((pc) => {
      this.loadedClient = pc;
      const m = new PromMetrics(pc, this.countObjects);
      for (const c of this.collectors) c(pc, m.registry);
      for (const f of this.pending) f(m);
      this.pending = [];
      return (this.impl = m);
    }));
  }

  private record(f: (m: PromMetrics) => void): void {
    if (this.impl) f(this.impl);
    else this.pending.push(f);
  }

  /**
   * Registers further metrics of a server part (e.g. the authentication configuration's reload
   * metrics) on this server's registry, once prom-client is loaded.
   */
  addCollector(register: (pc: PromClient, registry: Registry) => void): void {
    if (this.impl) register(this.loadedClient!, this.impl.registry);
    else this.collectors.push(register);
  }

  /** Call when a request starts; the returned function records its end with the status code. */
  begin(l: RequestLabels, dryRun: boolean): (code: number) => void {
    const started = process.hrtime.bigint();
    this.record((m) => m.started(l));
    return (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.record((m) => m.finished(l, dryRun, code, seconds));
    };
  }

  /** Metrics other modules render themselves (Prometheus text), appended to the registry's. */
  private readonly extraSources: (() => string)[] = [];
  addTextSource(render: () => string): void {
    this.extraSources.push(render);
  }

  async text(): Promise<{ body: string; contentType: string }> {
    const m = await this.load();
    const extra = this.extraSources.map((f) => f()).join("");
    return { body: (await m.registry.metrics()) + extra, contentType: m.registry.contentType };
  }
}

class PromMetrics {
  readonly registry: Registry;
  private readonly requests: Counter;
  private readonly duration: Histogram;
  private readonly inflight: Gauge;
  private readonly longRunning: Gauge;

  constructor(pc: PromClient, countObjects: () => Promise<Map<string, number>>) {
    const { Counter, Gauge, Histogram, Registry } = pc;
    this.registry = new Registry();
    const registers = [this.registry];
    this.requests = new Counter({
      name: "apiserver_request_total",
      help: "Requests served, by verb, dry run, group, version, resource, subresource, scope, component and response code.",
      labelNames: ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"],
      registers,
    });
    this.duration = new Histogram({
      name: "apiserver_request_duration_seconds",
      help: "Time to answer a request, in seconds (watches excluded).",
      labelNames: ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"],
      buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60],
      registers,
    });
    this.inflight = new Gauge({
      name: "apiserver_current_inflight_requests",
      help: "Requests being handled now, read-only or mutating (watches excluded).",
      labelNames: ["request_kind"],
      registers,
    });
    this.longRunning = new Gauge({
      name: "apiserver_longrunning_requests",
      help: "Open long-running requests (watches).",
      labelNames: ["verb", "group", "version", "resource", "subresource", "scope", "component"],
      registers,
    });
    const objects = new Gauge({
      name: "apiserver_storage_objects",
      help: "Objects in storage per resource, counted when scraped.",
      labelNames: ["resource"],
      registers,
      async collect() {
        this.reset();
        for (const [resource, n] of await countObjects()) this.set({ resource }, n);
      },
    });
    void objects;
    // No process-wide default collectors: they install observers that outlive a stopped server,
    // and a test runner may start hundreds of servers in one process.
  }

  started(l: RequestLabels): void {
    if (l.verb === "WATCH") this.longRunning.inc({ ...l, component: "apiserver" });
    else this.inflight.inc({ request_kind: requestKind(l) });
  }

  finished(l: RequestLabels, dryRun: boolean, code: number, seconds: number): void {
    const labels = { ...l, component: "apiserver" };
    if (l.verb === "WATCH") this.longRunning.dec(labels);
    else {
      this.inflight.dec({ request_kind: requestKind(l) });
      this.duration.observe({ ...labels, dry_run: dryRun ? "All" : "" }, seconds);
    }
    this.requests.inc({ ...labels, dry_run: dryRun ? "All" : "", code: String(code) });
  }
}

function requestKind(l: RequestLabels): string {
  return l.verb === "GET" || l.verb === "LIST" || l.verb === "WATCH" ? "readOnly" : "mutating";
}
