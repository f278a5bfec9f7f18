import { describe, expect, it } from "vitest";
import { MetricRegistry } from "./metric-registry.js";
import { StorageMetrics } from "./storage-metrics.js";

describe("storage metrics", () => {
  it("count stored objects once a scrape for the object and size families, -1 for each known resource when counting fails", async () => {
    let calls = 0;
    let fail = false;
    const m = new StorageMetrics({
      countObjects: async () => {
        calls++;
        if (fail) throw new Error("etcd unreachable");
        return new Map([["pods", { objects: 2, sizeBytes: 900 }], ["deployments.apps", { objects: 1 }]]);
      },
    });
    const r = new MetricRegistry({ version: "v1.34.0", disabledMetrics: ["apiserver_storage_objects"] });
    r.register(...m.families);
    let text = await r.render();
    expect(calls).toBe(1);
    expect(text).not.toContain("apiserver_storage_objects{");
    expect(text).toContain('apiserver_resource_objects{group="apps",resource="deployments"} 1\n');
    expect(text).toContain('apiserver_resource_objects{group="",resource="pods"} 2\n');
    expect(text).toContain('apiserver_resource_size_estimate_bytes{group="",resource="pods"} 900\n');
    expect(text).not.toContain('apiserver_resource_size_estimate_bytes{group="apps"');
    fail = true;
    text = await r.render();
    expect(text).toContain('apiserver_resource_objects{group="",resource="pods"} -1\n');
    expect(text).toContain('apiserver_resource_size_estimate_bytes{group="",resource="pods"} -1\n');
    expect(text).not.toContain('apiserver_resource_size_estimate_bytes{group="apps"');
  });

  it("reports the database's size by cluster, and lists from storage by group and resource", async () => {
    const m = new StorageMetrics({ countObjects: async () => new Map(), sizes: async () => [{ clusterId: "sqlite-0", endpoint: "/data/kapi.db", bytes: 4096 }] });
    m.listed("", "pods", { fetched: 10, evaluated: 10, returned: 3 });
    const r = new MetricRegistry({ version: "v1.34.0" });
    r.register(...m.families);
    const text = await r.render();
    expect(text).toContain('apiserver_storage_size_bytes{storage_cluster_id="sqlite-0"} 4096\n');
    expect(text).toContain("# HELP apiserver_storage_size_bytes [STABLE] Bytes the storage database takes on disk.\n");
    expect(text).not.toContain("apiserver_storage_db_total_size_in_bytes");
    expect(text).toContain('apiserver_storage_list_returned_objects_total{group="",resource="pods"} 3\n');
    expect(text).toContain('apiserver_storage_list_fetched_objects_total{group="",resource="pods"} 10\n');
  });
});
