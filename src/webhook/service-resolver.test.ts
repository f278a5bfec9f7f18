import { describe, expect, it } from "vitest";
import type { KObject } from "../apimachinery/object.js";
import { endpointServiceResolver, type ServiceSource } from "./service-resolver.js";

const o = (v: unknown) => v as KObject;
function source(objs: { services?: Record<string, unknown>; slices?: unknown[]; endpoints?: Record<string, unknown> }): ServiceSource {
  return {
    service: async (ns, n) => (objs.services?.[`${ns}/${n}`] ? o(objs.services[`${ns}/${n}`]) : undefined),
    endpointSlices: async () => (objs.slices ?? []).map(o),
    endpoints: async (ns, n) => (objs.endpoints?.[`${ns}/${n}`] ? o(objs.endpoints[`${ns}/${n}`]) : undefined),
  };
}
const svc = (spec: Record<string, unknown>) => ({ metadata: { name: "s" }, spec });
const err = (p: Promise<unknown>) => p.then(() => "resolved", (e: Error) => e.message);

describe("service resolution through endpoints", () => {
  it("maps the service port to the ready endpoint's port of the same name (slices first)", async () => {
    const r = endpointServiceResolver(
      source({
        services: { "ns/s": svc({ ports: [{ name: "https", port: 443 }, { name: "metrics", port: 8080 }] }) },
        slices: [{ ports: [{ name: "https", port: 9443 }], endpoints: [{ addresses: ["10.0.0.1"], conditions: { ready: false } }, { addresses: ["10.0.0.2"], conditions: {} }] }],
        endpoints: { "ns/s": { subsets: [{ addresses: [{ ip: "10.9.9.9" }], ports: [{ name: "https", port: 1 }] }] } },
      }),
    );
    expect(await r("ns", "s", 443)).toEqual({ host: "10.0.0.2", port: 9443 });
  });
  it("falls back to the Endpoints object; an unnamed port matches an unnamed one", async () => {
    const r = endpointServiceResolver(source({ services: { "ns/s": svc({ ports: [{ port: 443 }] }) }, endpoints: { "ns/s": { subsets: [{ addresses: [{ ip: "127.0.0.1" }], notReadyAddresses: [{ ip: "10.1.1.1" }], ports: [{ port: 8443 }] }] } } }));
    expect(await r("ns", "s", 443)).toEqual({ host: "127.0.0.1", port: 8443 });
  });
  it("an ExternalName service dials its name", async () => {
    const r = endpointServiceResolver(source({ services: { "ns/s": svc({ type: "ExternalName", externalName: "hooks.example.com" }) } }));
    expect(await r("ns", "s", 443)).toEqual({ host: "hooks.example.com", port: 443 });
  });
  it.each([
    [{}, 443, 'service "s" not found'],
    [{ services: { "ns/s": svc({ ports: [{ port: 80 }] }) } }, 443, 'no service port 443 found for service "s"'],
    [{ services: { "ns/s": svc({ ports: [{ port: 443 }] }) } }, 443, 'no endpoints available for service "s"'],
    [{ services: { "ns/s": svc({ type: "Weird", ports: [{ port: 443 }] }) } }, 443, 'unsupported service type "Weird"'],
  ])("errors as upstream words them (%#)", async (objs, port, want) => {
    expect(await err(endpointServiceResolver(source(objs))("ns", "s", port))).toBe(want);
  });
});
