// The watch cache families of kube-apiserver 1.34 (apiserver/pkg/storage/cacher/metrics): what
// each resource's cache received from storage and dispatched, how often it (re)initialised, the
// revision it is at, how many events its history holds at most, how long reads waited for it to
// catch up, and what LISTs served from it read and returned. Names keep upstream's quirks: the
// list families have no "watch_cache" part and the capacity gauge has no "apiserver_" one.
import { CounterFamily, GaugeFamily, HistogramFamily, type CounterCell, type GaugeCell } from "./metric-family.js";

const gr = ["group", "resource"];
const readWaitBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3];
/** kapi's cache has no list indexes (upstream's e.g. "f:spec.nodeName"): every list scans the prefix. */
const noIndex = "";

export class WatchCacheMetrics {
  readonly received = new CounterFamily({ name: "apiserver_watch_cache_events_received_total", help: "Events the watch cache received from storage, by group and resource.", stability: "ALPHA", labels: gr });
  readonly dispatched = new CounterFamily({ name: "apiserver_watch_cache_events_dispatched_total", help: "Events the watch cache dispatched to its watchers, by group and resource.", stability: "ALPHA", labels: gr });
  readonly initializations = new CounterFamily({ name: "apiserver_watch_cache_initializations_total", help: "Times a watch cache was initialised from storage, by group and resource.", stability: "ALPHA", labels: gr });
  readonly resourceVersion = new GaugeFamily({ name: "apiserver_watch_cache_resource_version", help: "The resource version the watch cache is at, by group and resource.", stability: "ALPHA", labels: gr });
  readonly capacity = new GaugeFamily({ name: "watch_cache_capacity", help: "The most events the watch cache keeps in its history, by group and resource.", stability: "ALPHA", labels: gr });
  readonly readWait = new HistogramFamily({ name: "apiserver_watch_cache_read_wait_seconds", help: "Time reads spent waiting for the watch cache to reach their revision, in seconds, by group and resource.", stability: "ALPHA", labels: gr, buckets: readWaitBuckets });
  readonly lists = new CounterFamily({ name: "apiserver_cache_list_total", help: "LIST requests served from the watch cache, by group, resource and the index used.", stability: "ALPHA", labels: [...gr, "index"] });
  readonly fetched = new CounterFamily({ name: "apiserver_cache_list_fetched_objects_total", help: "Objects the watch cache read to serve LIST requests, by group, resource and the index used.", stability: "ALPHA", labels: [...gr, "index"] });
  readonly returned = new CounterFamily({ name: "apiserver_cache_list_returned_objects_total", help: "Objects LIST requests served from the watch cache returned, by group and resource.", stability: "ALPHA", labels: gr });
  readonly initEvents = new CounterFamily({ name: "apiserver_init_events_total", help: "Events the watch cache sent watchers from its state or history as they started, by group and resource.", stability: "ALPHA", labels: gr });
  readonly terminatedWatchers = new CounterFamily({ name: "apiserver_terminated_watchers_total", help: "Watchers the watch cache ended for not keeping up with their events, by group and resource.", stability: "ALPHA", labels: gr });
  readonly consistentReads = new CounterFamily({ name: "apiserver_watch_cache_consistent_read_total", help: "Consistent lists asked of the watch cache, by group, resource, whether they were answered and whether storage answered them (the cache not catching up in time).", stability: "ALPHA", labels: [...gr, "success", "fallback"] });
  readonly families = [this.consistentReads, this.initEvents, this.terminatedWatchers, this.received, this.dispatched, this.initializations, this.resourceVersion, this.capacity, this.readWait, this.lists, this.fetched, this.returned];

  private readonly series = new Map<string, ReturnType<WatchCacheMetrics["makeSeries"]>>();

  /**
   * The recorder of one resource's cache (the storage layer's WatchCacheObserver, by shape); a
   * cache made again for the resource shares it.
   */
  seriesOf(group: string, resource: string) {
    const key = `${group}/${resource}`;
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = this.makeSeries(group, resource)));
    return s;
  }

  /** Each series is made when first recorded into, as upstream's vectors make theirs. */
  private makeSeries(group: string, resource: string) {
    let received: CounterCell | undefined;
    let dispatched: CounterCell | undefined;
    let revision: GaugeCell | undefined;
    let list: [CounterCell, CounterCell, CounterCell] | undefined;
    const reads: (CounterCell | undefined)[] = [];
    return {
      initialized: () => this.initializations.with(group, resource).inc(),
      capacity: (events: number) => this.capacity.with(group, resource).set(events),
      event: () => {
        (received ??= this.received.with(group, resource)).inc();
        (dispatched ??= this.dispatched.with(group, resource)).inc();
      },
      resourceVersion: (rev: number) => (revision ??= this.resourceVersion.with(group, resource)).set(rev),
      initEvents: (n: number) => this.initEvents.with(group, resource).inc(n),
      terminatedWatcher: () => this.terminatedWatchers.with(group, resource).inc(),
      // Every plain LIST is one: the four cells are kept rather than looked up by label text.
      consistentRead: (success: boolean, fallback: boolean) => (reads[(success ? 2 : 0) + (fallback ? 1 : 0)] ??= this.consistentReads.with(group, resource, String(success), String(fallback))).inc(),
      readWait: (seconds: number) => this.readWait.with(group, resource).observe(seconds),
      listed: (fetched: number, returned: number) => {
        list ??= [this.lists.with(group, resource, noIndex), this.fetched.with(group, resource, noIndex), this.returned.with(group, resource)];
        list[0].inc();
        list[1].inc(fetched);
        list[2].inc(returned);
      },
    };
  }
}
