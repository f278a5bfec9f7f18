// The watch families of kube-apiserver 1.34: events sent to watch clients and their sizes, per
// group, version and resource, each event counted once per watcher it is sent to; and how long
// watch-list requests (sendInitialEvents) took to send their initial events.
import { CounterFamily, HistogramFamily, exponentialBuckets, type CounterCell, type HistogramCell } from "./metric-family.js";

/** What one watch records into: looked up once when it starts. */
export interface WatchEventSeries {
  count: CounterCell;
  sizes: HistogramCell;
}

export class WatchMetrics {
  readonly events = new CounterFamily({ name: "apiserver_watch_events_total", help: "Watch events sent to clients, by group, version and resource.", stability: "ALPHA", labels: ["group", "version", "resource"] });
  readonly sizes = new HistogramFamily({ name: "apiserver_watch_events_sizes", help: "Size in bytes of the watch events sent to clients, by group, version and resource.", stability: "ALPHA", labels: ["group", "version", "resource"], buckets: exponentialBuckets(1024, 2, 8) });
  readonly watchList = new HistogramFamily({
    name: "apiserver_watch_list_duration_seconds",
    help: "Time from a watch-list request's arrival until its initial events were sent (the initial-events-end bookmark), in seconds, by group, version, resource and scope.",
    stability: "ALPHA",
    labels: ["group", "version", "resource", "scope"],
    buckets: [0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 2, 4, 6, 8, 10, 15, 20, 30, 45, 60],
  });
  readonly families = [this.events, this.sizes, this.watchList];

  seriesOf(group: string, version: string, resource: string): WatchEventSeries {
    return { count: this.events.with(group, version, resource), sizes: this.sizes.with(group, version, resource) };
  }

  /** A watch list sent its initial events, `seconds` after the request arrived. */
  initialEventsSent(group: string, version: string, resource: string, scope: string, seconds: number): void {
    this.watchList.with(group, version, resource, scope).observe(seconds);
  }
}
