// The APIService availability families of kube-aggregator 1.34 (pkg/controllers/status/metrics),
// fed by the availability controller: a gauge per APIService (1 while it is not Available, 0
// while it is; forgotten when the APIService is deleted) and a counter of its transitions to
// not Available, by the reason the condition gives.
import { CounterFamily, GaugeFamily } from "./metric-family.js";

export class AggregatorAvailabilityMetrics {
  /** name → Available, as last seen by a sync (upstream's availabilityCollector). */
  private readonly available = new Map<string, boolean>();
  readonly unavailable: GaugeFamily = new GaugeFamily({
    name: "aggregator_unavailable_apiservice",
    help: "Gauge of APIServices which are marked as unavailable broken down by APIService name.",
    stability: "ALPHA",
    labels: ["name"],
    // Written afresh at each scrape, so a forgotten APIService leaves no series behind.
    collect: () => {
      this.unavailable.reset();
      for (const [name, ok] of this.available) this.unavailable.with(name).set(ok ? 0 : 1);
    },
  });
  readonly unavailableTotal = new CounterFamily({
    name: "aggregator_unavailable_apiservice_total",
    help: "Counter of APIServices which are marked as unavailable broken down by APIService name and reason.",
    stability: "ALPHA",
    labels: ["name", "reason"],
  });
  readonly families = [this.unavailable, this.unavailableTotal];

  /** Every sync: the APIService's availability as the controller now sees it. */
  observe(name: string, available: boolean): void {
    this.available.set(name, available);
  }

  /** After a written status: a change to not Available counts, by its reason ("UnknownReason" without a condition). */
  transitioned(name: string, wasAvailable: boolean, isAvailable: boolean, reason: string | undefined): void {
    if (wasAvailable === isAvailable || isAvailable) return;
    this.unavailableTotal.with(name, reason ?? "UnknownReason").inc();
  }

  /** The APIService is gone. */
  forget(name: string): void {
    this.available.delete(name);
  }
}
