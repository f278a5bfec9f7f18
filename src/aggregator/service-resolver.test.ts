import { describe, expect, it } from "vitest";
import type { KObject } from "../apimachinery/object.js";
import type { ServiceSource } from "../webhook/service-resolver.js";
import { aggregatorResolver } from "./service-resolver.js";

const services: Record<string, unknown> = {
  "ns/cluster": { metadata: { name: "cluster" }, spec: { type: "ClusterIP", clusterIP: "10.96.0.7", ports: [{ name: "https", port: 443 }] } },
  "ns/headless": { metadata: { name: "headless" }, spec: { type: "ClusterIP", clusterIP: "None", ports: [{ name: "https", port: 443 }] } },
  "ns/external": { metadata: { name: "external" }, spec: { type: "ExternalName", externalName: "localhost" } },
};
const slices = [{ metadata: { labels: { "kubernetes.io/service-name": "cluster" } }, ports: [{ name: "https", port: 8443 }], endpoints: [{ addresses: ["10.0.0.9"], conditions: { ready: true } }] }];
const source: ServiceSource = {
  service: async (ns, n) => services[`${ns}/${n}`] as KObject | undefined,
  endpointSlices: async (_ns, svc) => (svc === "cluster" ? (slices as unknown as KObject[]) : []),
  endpoints: async () => undefined,
};
const loopback = { host: "127.0.0.1", port: 6443 };
const err = (p: Promise<unknown>) => p.then(() => "resolved", (e: Error) => e.message);

describe("where the aggregator dials an APIService's service", () => {
  it("by default: the cluster IP and service port, an ExternalName's name with the APIService's port", async () => {
    const r = aggregatorResolver({ source, endpointRouting: false, loopback: () => loopback });
    expect(await r("ns", "cluster", 443)).toEqual({ host: "10.96.0.7", port: 443 });
    expect(await r("ns", "external", 9443)).toEqual({ host: "localhost", port: 9443 });
    expect(await err(r("ns", "cluster", 80))).toBe('no service port 80 found for service "cluster"');
    expect(await err(r("ns", "headless", 443))).toBe('cannot route to service with ClusterIP "None"');
    expect(await err(r("ns", "missing", 443))).toBe('service "missing" not found');
  });

  it("with --enable-aggregator-routing: a ready endpoint; ExternalName refused", async () => {
    const r = aggregatorResolver({ source, endpointRouting: true, loopback: () => loopback });
    expect(await r("ns", "cluster", 443)).toEqual({ host: "10.0.0.9", port: 8443 });
    expect(await err(r("ns", "external", 443))).toBe('unsupported service type "ExternalName"');
  });

  it("default/kubernetes:443 is this server", async () => {
    expect(await aggregatorResolver({ source, endpointRouting: true, loopback: () => loopback })("default", "kubernetes", 443)).toEqual(loopback);
  });
});
