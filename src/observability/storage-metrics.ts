// The storage families of kube-apiserver 1.34 (apiserver/pkg/storage/etcd3/metrics): objects
// stored per resource and their estimated size, stored values that did not decode, the database's size, what LISTs served from storage (not from the watch
// cache) read, tested and returned, the events and progress notifications storage watches
// received, and how many keys each etcd lease carried.
import { CounterFamily, GaugeFamily, HistogramFamily, type CounterCell, type GaugeCell } from "./metric-family.js";

/** One resource's stored objects when last counted. */
export interface ResourceStats {
  objects: number;
  /** Their estimated size in bytes (-1: unknown); absent when not estimated (SizeBasedListCostEstimate off). */
  sizeBytes?: number;
}

/** How the storage is read at scrape time. */
export interface StorageProbe {
  /** Stored objects per resource ("resource.group", "resource" for the core group). */
  countObjects(): Promise<Map<string, ResourceStats>>;
  /** The size in bytes of each database (etcd cluster) that answered, named as upstream names them. */
  sizes?(): Promise<{ clusterId: string; endpoint: string; bytes: number }[]>;
}

/** What one LIST from storage did. */
export interface StorageListCounts {
  fetched: number;
  evaluated: number;
  returned: number;
}

export class StorageMetrics {
  readonly objects = new GaugeFamily({
    name: "apiserver_storage_objects",
    help: "Objects stored per resource when last counted, -1 when counting failed. Deprecated in favour of apiserver_resource_objects.",
    stability: "STABLE",
    labels: ["resource"],
    collect: () => this.countOnce(),
  });
  readonly resourceObjects = new GaugeFamily({
    name: "apiserver_resource_objects",
    help: "Objects stored per group and resource when last counted, -1 when counting failed.",
    stability: "ALPHA",
    labels: ["group", "resource"],
    collect: () => this.countOnce(),
  });
  readonly sizeEstimate = new GaugeFamily({
    name: "apiserver_resource_size_estimate_bytes",
    help: "Estimated bytes of the objects stored per group and resource when last counted: their count times the average size of their stored values as last seen; -1 when counting failed or no value was seen yet.",
    stability: "ALPHA",
    labels: ["group", "resource"],
    collect: () => this.countOnce(),
  });
  readonly decodeErrors = new CounterFamily({ name: "apiserver_storage_decode_errors_total", help: "Stored values that did not decode, by group and resource.", stability: "ALPHA", labels: ["group", "resource"] });
  readonly sizeBytes = new GaugeFamily({
    name: "apiserver_storage_size_bytes",
    help: "Bytes the storage database takes on disk.",
    stability: "STABLE",
    labels: ["storage_cluster_id"],
    collect: () => this.measure(),
  });
  readonly dbTotalSize = new GaugeFamily({
    name: "apiserver_storage_db_total_size_in_bytes",
    help: "Bytes the storage database takes on disk, per endpoint.",
    stability: "ALPHA",
    deprecatedVersion: "1.28.0",
    labels: ["endpoint"],
  });
  readonly lists = new CounterFamily({ name: "apiserver_storage_list_total", help: "LIST requests answered from storage rather than from the watch cache, by group and resource.", stability: "ALPHA", labels: ["group", "resource"] });
  readonly fetched = new CounterFamily({ name: "apiserver_storage_list_fetched_objects_total", help: "Objects read from storage to answer LIST requests, by group and resource.", stability: "ALPHA", labels: ["group", "resource"] });
  readonly evaluated = new CounterFamily({ name: "apiserver_storage_list_evaluated_objects_total", help: "Objects tested against the selectors of LIST requests answered from storage, by group and resource.", stability: "ALPHA", labels: ["group", "resource"] });
  readonly returned = new CounterFamily({ name: "apiserver_storage_list_returned_objects_total", help: "Objects returned by LIST requests answered from storage, by group and resource.", stability: "ALPHA", labels: ["group", "resource"] });
  readonly eventsReceived = new CounterFamily({ name: "apiserver_storage_events_received_total", help: "Events storage watches received, by group and resource.", stability: "ALPHA", labels: ["group", "resource"] });
  // A gauge only ever increased: upstream's type for it.
  readonly bookmarks = new GaugeFamily({ name: "etcd_bookmark_counts", help: "Progress notifications (bookmarks) etcd watches received, by group and resource.", stability: "ALPHA", labels: ["group", "resource"] });
  readonly leaseObjects = new HistogramFamily({ name: "etcd_lease_object_counts", help: "Keys attached to one etcd lease, observed as the next lease is granted.", stability: "ALPHA", buckets: [10, 50, 100, 500, 1000, 2500, 5000] });
  readonly families = [this.objects, this.resourceObjects, this.sizeEstimate, this.decodeErrors, this.sizeBytes, this.dbTotalSize, this.lists, this.fetched, this.evaluated, this.returned, this.eventsReceived, this.bookmarks, this.leaseObjects];

  private readonly listSeries = new Map<string, [CounterCell, CounterCell, CounterCell, CounterCell]>();
  /** Resources counted so far, and whether their size is estimated. */
  private readonly knownResources = new Map<string, boolean>();
  /** The count under way: the object and size families read one count per scrape (any may be disabled). */
  private counting: Promise<void> | undefined;

  constructor(private readonly probe: StorageProbe) {}

  /** A LIST served from storage (upstream: RecordStorageListMetrics). */
  listed(group: string, resource: string, c: StorageListCounts): void {
    const key = `${group}/${resource}`;
    let s = this.listSeries.get(key);
    if (!s) this.listSeries.set(key, (s = [this.lists.with(group, resource), this.fetched.with(group, resource), this.evaluated.with(group, resource), this.returned.with(group, resource)]));
    s[0].inc();
    s[1].inc(c.fetched);
    s[2].inc(c.evaluated);
    s[3].inc(c.returned);
  }

  /** The cells one storage watch of a resource records into: events, and (etcd) progress notifications. */
  watchSeries(group: string, resource: string): { event: CounterCell; bookmark: () => void } {
    let bookmark: GaugeCell | undefined;
    return { event: this.eventsReceived.with(group, resource), bookmark: () => (bookmark ??= this.bookmarks.with(group, resource)).inc() };
  }

  /** A stored value of this group and resource did not decode (upstream: RecordDecodeError). */
  decodeFailed(group: string, resource: string): void {
    this.decodeErrors.with(group, resource).inc();
  }

  /** A new etcd lease was granted: the keys the previous one carried (with the write that outgrew it, as upstream counts). */
  leaseGranted(attachedObjects: number): void {
    this.leaseObjects.with().observe(attachedObjects);
  }

  private countOnce(): Promise<void> {
    return (this.counting ??= this.count().finally(() => (this.counting = undefined)));
  }

  private async count(): Promise<void> {
    let counts: Map<string, ResourceStats>;
    try {
      counts = await this.probe.countObjects();
    } catch {
      // Upstream's "fetching error": every resource known so far reads -1.
      counts = new Map([...this.knownResources].map(([r, estimated]) => [r, estimated ? { objects: -1, sizeBytes: -1 } : { objects: -1 }]));
    }
    this.objects.reset();
    this.resourceObjects.reset();
    this.sizeEstimate.reset();
    for (const [qualified, stats] of counts) {
      this.knownResources.set(qualified, stats.sizeBytes !== undefined);
      const dot = qualified.indexOf(".");
      const group = dot < 0 ? "" : qualified.slice(dot + 1);
      const resource = dot < 0 ? qualified : qualified.slice(0, dot);
      this.objects.with(qualified).set(stats.objects);
      this.resourceObjects.with(group, resource).set(stats.objects);
      if (stats.sizeBytes !== undefined) this.sizeEstimate.with(group, resource).set(stats.sizeBytes);
    }
  }

  private async measure(): Promise<void> {
    const sizes = (await this.probe.sizes?.().catch(() => undefined)) ?? [];
    this.sizeBytes.reset();
    this.dbTotalSize.reset();
    for (const size of sizes) {
      this.sizeBytes.with(size.clusterId).set(size.bytes);
      // Upstream still feeds the deprecated one (shown with --show-hidden-metrics-for-version).
      if (!this.dbTotalSize.hidden) this.dbTotalSize.with(size.endpoint).set(size.bytes);
    }
  }
}
