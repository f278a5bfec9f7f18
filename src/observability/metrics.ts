// The metrics of one server instance (its own registry: two servers in one process report only
// their own requests), served on /metrics. Each group of families is its own module; this one
// holds them, applies the stability rules (metric-registry.ts) and writes the page.
import type { Registry } from "prom-client";
import { AdmissionMetrics } from "./admission-metrics.js";
import { AuthenticationMetrics } from "./authn-metrics.js";
import { AuthorizationFilterMetrics } from "./authz-metrics.js";
import { CelMetrics } from "./cel-metrics.js";
import { GaugeFamily, type Family } from "./metric-family.js";
import { MetricRegistry } from "./metric-registry.js";
import { processMetrics } from "./process-metrics.js";
import { RequestMetrics } from "./request-metrics.js";
import { RequestPathMetrics } from "./request-path-metrics.js";
import { StorageMetrics, type StorageProbe } from "./storage-metrics.js";
import { TransformationMetrics } from "./transformation-metrics.js";
import { ValidationMetrics } from "./validation-metrics.js";
import { kubernetesVersion } from "./version.js";
import { WatchCacheMetrics } from "./watch-cache-metrics.js";
import { WatchMetrics } from "./watch-metrics.js";

type PromClient = typeof import("prom-client");

export type { RequestLabels } from "./request-metrics.js";

export interface ServerMetricsOptions {
  storage: StorageProbe;
  /** --show-hidden-metrics-for-version (checked beforehand: "" or the previous minor release). */
  showHiddenMetricsForVersion?: string;
  /** --disabled-metrics. */
  disabledMetrics?: readonly string[];
}

export class ServerMetrics {
  readonly registry: MetricRegistry;
  readonly requests = new RequestMetrics();
  readonly requestPath = new RequestPathMetrics();
  readonly watch = new WatchMetrics();
  readonly watchCache = new WatchCacheMetrics();
  readonly transformation = new TransformationMetrics();
  readonly storage: StorageMetrics;
  readonly admission = new AdmissionMetrics();
  readonly authentication = new AuthenticationMetrics();
  readonly authorization = new AuthorizationFilterMetrics();
  readonly validation = new ValidationMetrics();
  readonly cel = new CelMetrics();

  // prom-client is loaded after start-up (it costs tens of milliseconds to import): for the
  // process families, and for parts that register prom-client collectors of their own.
  private prom?: { pc: PromClient; registry: Registry; process: Registry };
  private loading?: Promise<void>;
  private collectors: ((pc: PromClient, registry: Registry) => void)[] = [];
  /** Metrics other modules render themselves (Prometheus text), appended to the page. */
  private readonly extraSources: (() => string)[] = [];

  constructor(o: ServerMetricsOptions) {
    this.registry = new MetricRegistry({ version: kubernetesVersion, showHiddenMetricsForVersion: o.showHiddenMetricsForVersion, disabledMetrics: o.disabledMetrics });
    this.storage = new StorageMetrics(o.storage);
    for (const group of [this.requests, this.requestPath, this.watch, this.watchCache, this.transformation, this.storage, this.admission, this.authentication, this.authorization, this.validation, this.cel]) this.register(...group.families);
  }

  /** Adds families of a server part (named once each; the stability rules apply to them). */
  register(...families: Family<unknown>[]): void {
    this.registry.register(...families);
  }

  load(): Promise<void> {
    return (this.loading ??= import("prom-client").then((pc) => {
      // The process families now rather than at the first scrape: event-loop delay is observed from here on.
      this.prom = { pc, registry: new pc.Registry(), process: processMetrics(pc) };
      for (const c of this.collectors) c(pc, this.prom.registry);
      this.collectors = [];
    }));
  }

  /** Registers prom-client metrics of a server part on this server's own prom-client registry, once loaded. */
  addCollector(register: (pc: PromClient, registry: Registry) => void): void {
    if (this.prom) register(this.prom.pc, this.prom.registry);
    else this.collectors.push(register);
  }

  addTextSource(render: () => string): void {
    this.extraSources.push(render);
  }

  async text(): Promise<{ body: string; contentType: string }> {
    await this.load();
    const parts = await Promise.all([this.registry.render(), this.prom!.registry.metrics(), this.prom!.process.metrics()]);
    const extra = this.extraSources.map((f) => f()).join("");
    return { body: parts.map((p) => (p && !p.endsWith("\n") ? p + "\n" : p)).join("") + extra, contentType: "text/plain; version=0.0.4; charset=utf-8" };
  }
}

/** The labels of apiserver_requested_deprecated_apis, in its label order. */
export interface DeprecatedApiLabels {
  group: string;
  version: string;
  resource: string;
  subresource: string;
  removed_release: string;
}

/**
 * apiserver_requested_deprecated_apis: 1 for each deprecated API requested since the server
 * started (upstream's stable gauge, set by its request monitor). Returns what records one request.
 */
export function deprecatedApiGauge(metrics: ServerMetrics): (labels: DeprecatedApiLabels) => void {
  const gauge = new GaugeFamily({
    name: "apiserver_requested_deprecated_apis",
    help: "Deprecated APIs requested since the server started, by group, version, resource, subresource and the release that removes them.",
    stability: "STABLE",
    labels: ["group", "version", "resource", "subresource", "removed_release"],
  });
  metrics.register(gauge);
  return (l) => gauge.with(l.group, l.version, l.resource, l.subresource, l.removed_release).set(1);
}
