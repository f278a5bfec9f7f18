// The watch families of kube-apiserver 1.34: events sent to watch clients and their sizes, per
// group, version and resource, each event counted once per watcher it is sent to.
import { CounterFamily, HistogramFamily, exponentialBuckets, type CounterCell, type HistogramCell } from "./metric-family.js";

/** What one watch records into: looked up once when it starts. */
export interface WatchEventSeries {
  count: CounterCell;
  sizes: HistogramCell;
}

export class WatchMetrics {
  readonly events = new CounterFamily({ name: "apiserver_watch_events_total", help: "Watch events sent to clients, by group, version and resource.", stability: "ALPHA", labels: ["group", "version", "resource"] });
  readonly sizes = new HistogramFamily({ name: "apiserver_watch_events_sizes", help: "Size in bytes of the watch events sent to clients, by group, version and resource.", stability: "ALPHA", labels: ["group", "version", "resource"], buckets: exponentialBuckets(1024, 2, 8) });
  readonly families = [this.events, this.sizes];

  seriesOf(group: string, version: string, resource: string): WatchEventSeries {
    return { count: this.events.with(group, version, resource), sizes: this.sizes.with(group, version, resource) };
  }
}
