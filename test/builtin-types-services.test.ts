// Service ClusterIP and NodePort allocation through the API.
import { describe, expect, it } from "vitest";
import { req } from "./support/client.js";
import { ns, serverPerFile } from "./support/builtin-types.js";

const server = serverPerFile();

describe("Service allocation", () => {
  it("gives 20 Services distinct ClusterIPs in 10.0.0.0/24, never the first address", async () => {
    const ips = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const r = await req(server(), "POST", `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: `alloc-${i}` }, spec: { ports: [{ port: 80 }] } } });
      expect(r.status, r.text).toBe(201);
      const ip = r.json.spec.clusterIP as string;
      expect(ip).toMatch(/^10\.0\.0\.(\d+)$/);
      const last = Number(ip.split(".")[3]);
      expect(last).toBeGreaterThan(1);
      expect(last).toBeLessThan(255);
      expect(r.json.spec.clusterIPs).toEqual([ip]);
      ips.add(ip);
    }
    expect(ips.size).toBe(20);
  });

  it("rejects a ClusterIP already in use", async () => {
    const a = (await req(server(), "POST", `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: "taken-a" }, spec: { ports: [{ port: 80 }] } } })).json;
    const r = await req(server(), "POST", `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: "taken-b" }, spec: { clusterIP: a.spec.clusterIP, ports: [{ port: 80 }] } } });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([
      { reason: "FieldValueInvalid", field: "spec.clusterIPs", message: `Invalid value: ["${a.spec.clusterIP}"]: failed to allocate IP ${a.spec.clusterIP}: provided IP is already allocated` },
    ]);
  });

  it("allocates NodePorts for NodePort and LoadBalancer Services, distinct", async () => {
    const np = await req(server(), "POST", `/api/v1/namespaces/${ns}/services`, {
      body: { metadata: { name: "np1" }, spec: { type: "NodePort", ports: [{ name: "a", port: 80 }, { name: "b", port: 443 }] } },
    });
    expect(np.status, np.text).toBe(201);
    const ports = np.json.spec.ports.map((p: any) => p.nodePort);
    for (const p of ports) expect(p).toBeGreaterThanOrEqual(30000), expect(p).toBeLessThanOrEqual(32767);
    expect(new Set(ports).size).toBe(2);
    expect(np.json.spec.externalTrafficPolicy).toBe("Cluster");
    const lb = await req(server(), "POST", `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: "lb1" }, spec: { type: "LoadBalancer", ports: [{ port: 80 }] } } });
    expect(lb.status, lb.text).toBe(201);
    expect(lb.json.spec.allocateLoadBalancerNodePorts).toBe(true);
    expect(ports).not.toContain(lb.json.spec.ports[0].nodePort);
    const dup = await req(server(), "POST", `/api/v1/namespaces/${ns}/services`, {
      body: { metadata: { name: "np2" }, spec: { type: "NodePort", ports: [{ port: 80, nodePort: ports[0] }] } },
    });
    expect(dup.status).toBe(422);
    expect(dup.json.details.causes).toEqual([{ reason: "FieldValueInvalid", field: "spec.ports[0].nodePort", message: `Invalid value: ${ports[0]}: provided port is already allocated` }]);
  });

  it("headless and ExternalName Services", async () => {
    const h = await req(server(), "POST", `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: "headless" }, spec: { clusterIP: "None", selector: { a: "b" } } } });
    expect(h.status, h.text).toBe(201);
    expect(h.json.spec).toMatchObject({ clusterIP: "None", clusterIPs: ["None"], ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack" });
    const e = await req(server(), "POST", `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: "ext" }, spec: { type: "ExternalName", externalName: "example.com" } } });
    expect(e.status, e.text).toBe(201);
    expect(e.json.spec).toEqual({ externalName: "example.com", sessionAffinity: "None", type: "ExternalName" });
  });
});
