// Two storage families against a real server (memory storage), read from /metrics by a real
// Prometheus text parser: apiserver_resource_size_estimate_bytes (1.34, SizeBasedListCostEstimate
// on by default), the resource's object count times the average size of the stored values its
// watch cache holds; and apiserver_storage_decode_errors_total, counted when a stored value read
// back does not decode (a GET, and the list a watch cache loads from).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req } from "./support/client.js";
import { startTuned, type PartsServer } from "./support/list-watch.js";
import { parseMetricsPage } from "./support/prometheus-text.js";

let s: PartsServer;
const ns = "sized";
const cms = `/api/v1/namespaces/${ns}/configmaps`;
const metricsPage = async () => parseMetricsPage((await req(s, "GET", "/metrics")).text);

beforeAll(async () => {
  s = await startTuned();
  expect((await req(s, "POST", "/api/v1/namespaces", { body: { metadata: { name: ns } } })).status).toBe(201);
});
afterAll(async () => s?.stop());

describe("apiserver_resource_size_estimate_bytes", () => {
  it("is the count of stored objects times the floored average size of the values the watch cache holds", async () => {
    for (const [name, size] of [["small", 10], ["medium", 1000], ["large", 20_000]] as const) {
      expect((await req(s, "POST", cms, { body: { metadata: { name }, data: { v: "x".repeat(size) } } })).status).toBe(201);
    }
    // A list makes (or reads) the configmaps' cache; settled, it holds every stored value.
    expect((await req(s, "GET", cms)).status).toBe(200);
    await s.settle();
    const stored = (await s.storage.range("/registry/configmaps/")).items;
    const total = stored.reduce((n, kv) => n + kv.value.length, 0);
    const page = await metricsPage();
    const family = page.families.get("apiserver_resource_size_estimate_bytes");
    expect(family?.type).toBe("GAUGE");
    expect(family?.help).toMatch(/^\[ALPHA\] /);
    expect(page.find("apiserver_resource_size_estimate_bytes", { group: "", resource: "configmaps" }).map((x) => x.value)).toEqual([Math.floor(total / stored.length) * stored.length]);
    // Every resource counted has an estimate beside its object count: 0 for none stored, else the estimate or -1 (no cache has seen its values).
    for (const count of page.find("apiserver_resource_objects")) {
      const [estimate] = page.find("apiserver_resource_size_estimate_bytes", count.labels);
      expect(estimate, JSON.stringify(count.labels)).toBeDefined();
      if (count.value === 0) expect(estimate!.value).toBe(0);
      else expect(estimate!.value === -1 || estimate!.value > 0).toBe(true);
    }
  });
});

describe("apiserver_storage_decode_errors_total", () => {
  it("counts stored values that do not decode, by group and resource", async () => {
    const decodeErrors = async (labels: Record<string, string>) => (await metricsPage()).find("apiserver_storage_decode_errors_total", labels).reduce((n, x) => n + x.value, 0);
    const configmaps = { group: "", resource: "configmaps" };
    expect(await decodeErrors({})).toBe(0);
    expect((await req(s, "POST", cms, { body: { metadata: { name: "broken" } } })).status).toBe(201);
    await s.storage.update(`/registry/configmaps/${ns}/broken`, "{not json", 0);
    expect((await req(s, "GET", `${cms}/broken`)).status).toBe(500);
    expect(await decodeErrors(configmaps)).toBeGreaterThanOrEqual(1);
    const afterGet = await decodeErrors(configmaps);
    // One more GET, one more.
    expect((await req(s, "GET", `${cms}/broken`)).status).toBe(500);
    expect((await decodeErrors(configmaps)) - afterGet).toBeGreaterThanOrEqual(1);
    const page = await metricsPage();
    expect(page.families.get("apiserver_storage_decode_errors_total")?.type).toBe("COUNTER");
    expect(page.families.get("apiserver_storage_decode_errors_total")?.help).toMatch(/^\[ALPHA\] /);

    // Lists: the watch cache meets the broken value in its event and fails; loaded again for the
    // next list, it meets it again (the list refused meanwhile).
    const secrets = `/api/v1/namespaces/${ns}/secrets`;
    expect((await req(s, "POST", secrets, { body: { metadata: { name: "broken" } } })).status).toBe(201);
    expect(await decodeErrors({ group: "", resource: "secrets" })).toBe(0);
    await s.storage.update(`/registry/secrets/${ns}/broken`, "[1,", 0);
    const deadline = Date.now() + 10_000;
    while ((await decodeErrors({ group: "", resource: "secrets" })) === 0 && Date.now() < deadline) {
      expect((await req(s, "GET", secrets)).status).not.toBe(200);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await decodeErrors({ group: "", resource: "secrets" })).toBeGreaterThanOrEqual(1);
    expect((await req(s, "GET", secrets)).status).toBeGreaterThanOrEqual(500);
  });
});
