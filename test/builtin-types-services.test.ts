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

describe("Service spec.externalIPs (kube-apiserver 1.34)", () => {
  const post = (name: string, spec: Record<string, unknown>) => req(server(), "POST", `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } } });

  it("refuses the special addresses as errors, with upstream's messages, each address on its own", async () => {
    const r = await post("special", { externalIPs: ["0.0.0.0", "127.0.0.2", "169.254.169.254", "224.0.0.251", "::1", "fe80::1", "ff02::1", "::ffff:127.0.0.1", "not-an-ip", "192.0.2.10"] });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([
      { reason: "FieldValueInvalid", field: "spec.externalIPs[0]", message: 'Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)' },
      { reason: "FieldValueInvalid", field: "spec.externalIPs[1]", message: 'Invalid value: "127.0.0.2": may not be in the loopback range (127.0.0.0/8, ::1/128)' },
      { reason: "FieldValueInvalid", field: "spec.externalIPs[2]", message: 'Invalid value: "169.254.169.254": may not be in the link-local range (169.254.0.0/16, fe80::/10)' },
      { reason: "FieldValueInvalid", field: "spec.externalIPs[3]", message: 'Invalid value: "224.0.0.251": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)' },
      { reason: "FieldValueInvalid", field: "spec.externalIPs[4]", message: 'Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)' },
      { reason: "FieldValueInvalid", field: "spec.externalIPs[5]", message: 'Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)' },
      { reason: "FieldValueInvalid", field: "spec.externalIPs[6]", message: 'Invalid value: "ff02::1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)' },
      { reason: "FieldValueInvalid", field: "spec.externalIPs[7]", message: 'Invalid value: "::ffff:127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)' },
      { reason: "FieldValueInvalid", field: "spec.externalIPs[8]", message: 'Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)' },
    ]);
  });

  it("takes a loosely written address, warning about it; a plain one without a warning", async () => {
    const r = await post("loose", { externalIPs: ["010.001.002.003", "::ffff:192.0.2.7", "2001:DB8::0:1", "192.0.2.10"] });
    expect(r.status, r.text).toBe(201);
    expect(r.json.spec.externalIPs).toEqual(["010.001.002.003", "::ffff:192.0.2.7", "2001:DB8::0:1", "192.0.2.10"]);
    const warning = String(r.headers.warning);
    expect(warning).toContain('299 - "spec.externalIPs[0]: non-standard IP address \\"010.001.002.003\\" will be considered invalid in a future Kubernetes release: use \\"10.1.2.3\\""');
    expect(warning).toContain('299 - "spec.externalIPs[1]: non-standard IP address \\"::ffff:192.0.2.7\\" will be considered invalid in a future Kubernetes release: use \\"192.0.2.7\\""');
    expect(warning).toContain('299 - "spec.externalIPs[2]: IPv6 address \\"2001:DB8::0:1\\" should be in RFC 5952 canonical format (\\"2001:db8::1\\")"');
    expect(warning).not.toContain("externalIPs[3]");
    const plain = await post("plain", { externalIPs: ["192.0.2.11"] });
    expect(plain.status, plain.text).toBe(201);
    expect(plain.headers.warning).toBeUndefined();
  });

  it("warns that a headless or ExternalName Service ignores them; a refused write warns of nothing", async () => {
    const h = await req(server(), "POST", `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: "headless-ext" }, spec: { clusterIP: "None", selector: { a: "b" }, externalIPs: ["192.0.2.12"] } } });
    expect(h.status, h.text).toBe(201);
    expect(String(h.headers.warning)).toBe('299 - "spec.externalIPs is ignored for headless services"');
    const e = await req(server(), "POST", `/api/v1/namespaces/${ns}/services`, { body: { metadata: { name: "extname-ext" }, spec: { type: "ExternalName", externalName: "example.com", externalIPs: ["192.0.2.13"] } } });
    expect(e.status, e.text).toBe(201);
    expect(String(e.headers.warning)).toBe('299 - "spec.externalIPs is ignored when spec.type is \\"ExternalName\\""');
    const bad = await post("bad-loose", { externalIPs: ["010.0.0.1", "127.0.0.1"] });
    expect(bad.status).toBe(422);
    expect(bad.headers.warning).toBeUndefined();
  });
});
