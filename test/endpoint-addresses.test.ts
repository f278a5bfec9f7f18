// Endpoints and EndpointSlices refuse the addresses a Service must never route to (upstream
// ValidateEndpointIP: unspecified, loopback, link-local unicast and link-local multicast), with
// upstream's 422 messages, through kubectl and a raw client alike.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { req } from "./support/client.js";
import { kubectl, kubectlBinary } from "./support/kubectl.js";
import { startTuned, type PartsServer } from "./support/list-watch.js";

const kubectlBin = kubectlBinary(33) ?? kubectlBinary(32);
let s: PartsServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kapi-endpoint-addresses-"));
  s = await startTuned({});
  writeFileSync(join(dir, "kubeconfig"), s.kubeconfig);
});
afterAll(async () => {
  await s?.stop();
});

const endpoints = (name: string, ip: string) => ({ apiVersion: "v1", kind: "Endpoints", metadata: { name }, subsets: [{ addresses: [{ ip }], ports: [{ port: 80 }] }] });
const slice = (name: string, addressType: string, address: string) => ({
  metadata: { name },
  addressType,
  endpoints: [{ addresses: [address] }],
  ports: [{ name: "http", port: 80, protocol: "TCP" }],
});

describe("Endpoints", () => {
  it.each([
    ["0.0.0.0", "may not be unspecified (0.0.0.0)"],
    ["127.0.0.1", "may not be in the loopback range (127.0.0.0/8, ::1/128)"],
    ["::1", "may not be in the loopback range (127.0.0.0/8, ::1/128)"],
    ["169.254.169.254", "may not be in the link-local range (169.254.0.0/16, fe80::/10)"],
    ["fe80::1", "may not be in the link-local range (169.254.0.0/16, fe80::/10)"],
    ["224.0.0.1", "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"],
  ])("%s: 422 %s", async (ip, msg) => {
    const r = await req(s, "POST", "/api/v1/namespaces/default/endpoints", { body: endpoints("ep", ip) });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(`Endpoints "ep" is invalid: subsets[0].addresses[0].ip: Invalid value: "${ip}": ${msg}`);
    expect(r.json.details.causes).toEqual([{ reason: "FieldValueInvalid", message: `Invalid value: "${ip}": ${msg}`, field: "subsets[0].addresses[0].ip" }]);
  });

  it("a malformed address gets the IP message alone; a global address is stored", async () => {
    const bad = await req(s, "POST", "/api/v1/namespaces/default/endpoints", { body: endpoints("bad", "1.2.3") });
    expect(bad.json.message).toBe('Endpoints "bad" is invalid: subsets[0].addresses[0].ip: Invalid value: "1.2.3": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)');
    expect((await req(s, "POST", "/api/v1/namespaces/default/endpoints", { body: endpoints("good", "10.1.2.3") })).status).toBe(201);
  });

  it.skipIf(!kubectlBin)("kubectl apply shows upstream's error", async () => {
    const k = await kubectl(kubectlBin!, join(dir, "kubeconfig"), ["apply", "-f", "-"], JSON.stringify(endpoints("kube", "127.0.0.1")));
    expect(k.stderr).toContain('The Endpoints "kube" is invalid: subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)');
  });
});

describe("EndpointSlices", () => {
  const path = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices";
  it.each([
    ["IPv4", "127.0.0.1", "may not be in the loopback range (127.0.0.0/8, ::1/128)"],
    ["IPv4", "169.254.1.1", "may not be in the link-local range (169.254.0.0/16, fe80::/10)"],
    ["IPv6", "::", "may not be unspecified (::)"],
    ["IPv6", "ff02::1", "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"],
    // Both checks speak, as upstream appends them.
    ["IPv4", "::1", 'must be a valid IPv4 address, endpoints[0].addresses[0]: Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)]'],
  ])("%s %s: 422 %s", async (type, address, msg) => {
    const r = await req(s, "POST", path, { body: slice("sl", type, address) });
    expect(r.status).toBe(422);
    expect(r.json.message.replace("invalid: [", "invalid: ")).toBe(`EndpointSlice.discovery.k8s.io "sl" is invalid: endpoints[0].addresses[0]: Invalid value: "${address}": ${msg}`);
  });

  it("the address type is required, the deprecated IP type refused on create, FQDN addresses checked, global addresses stored", async () => {
    const none = await req(s, "POST", path, { body: slice("none", "", "10.0.0.1") });
    expect(none.json.message).toBe('EndpointSlice.discovery.k8s.io "none" is invalid: addressType: Required value');
    const ip = await req(s, "POST", path, { body: slice("ip", "IP", "10.0.0.1") });
    expect(ip.json.message).toBe('EndpointSlice.discovery.k8s.io "ip" is invalid: addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"');
    const fqdn = await req(s, "POST", path, { body: slice("fqdn", "FQDN", "localhost") });
    expect(fqdn.json.message).toBe('EndpointSlice.discovery.k8s.io "fqdn" is invalid: endpoints[0].addresses[0]: Invalid value: "localhost": should be a domain with at least two segments separated by dots');
    expect((await req(s, "POST", path, { body: slice("ok", "IPv4", "10.0.0.1") })).status).toBe(201);
    const changed = await req(s, "PUT", `${path}/ok`, { body: { ...slice("ok", "IPv6", "2001:db8::1"), metadata: { name: "ok", resourceVersion: (await req(s, "GET", `${path}/ok`)).json.metadata.resourceVersion } } });
    expect(changed.json.message).toBe('EndpointSlice.discovery.k8s.io "ok" is invalid: addressType: Invalid value: "IPv6": field is immutable');
  });

  it("a port's unset name and protocol default to \"\" and TCP (upstream's SetDefaults_EndpointPort); an empty protocol stays and is refused", async () => {
    const bare = { ...slice("bare", "IPv4", "10.0.0.2"), ports: [{ port: 8443 }] };
    const r = await req(s, "POST", path, { body: bare });
    expect(r.status).toBe(201);
    expect(r.json.ports).toEqual([{ name: "", port: 8443, protocol: "TCP" }]);
    const empty = await req(s, "POST", path, { body: { ...slice("empty", "IPv4", "10.0.0.3"), ports: [{ port: 8443, protocol: "" }] } });
    expect(empty.status).toBe(422);
  });
});
