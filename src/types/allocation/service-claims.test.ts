// The claims of Service values in storage and their repair, over a real (memory) storage.
import { describe, expect, it } from "vitest";
import { WriteClaims } from "../../registry/claims.js";
import { MemoryStorage } from "../../storage/memory/memory-storage.js";
import type { Obj } from "../validation/helpers.js";
import { parsePortRange } from "./ranges.js";
import { claimServiceValues, ipAddressKey, nodePortsKey, portsOfRangeAllocation, rangeAllocation, ServiceClaimsRepair } from "./service-claims.js";

const ports = parsePortRange("30000-30010");
const svc = (name: string, ip: string, nodePort?: number): Obj => ({
  metadata: { namespace: "default", name },
  spec: { type: nodePort ? "NodePort" : "ClusterIP", clusterIP: ip, clusterIPs: [ip], ports: [{ port: 80, ...(nodePort ? { nodePort } : {}) }] },
});
const ipAddress = (ip: string, parent: string, createdMsAgo: number, now: number) => ({
  metadata: { name: ip, uid: `uid-${ip}`, creationTimestamp: new Date(now - createdMsAgo).toISOString().replace(/\.\d+Z$/, "Z"), labels: { "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io" } },
  spec: { parentRef: { group: "", resource: "services", namespace: "default", name: parent } },
});

describe("service claims", () => {
  it("a round that lost an address claims no port and gives its other addresses back (the caller chooses again)", async () => {
    const storage = new MemoryStorage();
    const other = new WriteClaims(storage);
    await claimServiceValues(svc("a", "10.0.0.5"), undefined, other, ports);
    await other.settle(true);
    const two = (ip1: string, ip2: string, nodePort: number): Obj => ({ ...svc("b", ip1, nodePort), spec: { ...svc("b", ip1, nodePort).spec, clusterIPs: [ip1, ip2] } });
    const mine = new WriteClaims(storage);
    expect(await claimServiceValues(two("10.0.0.7", "10.0.0.5", 30007), undefined, mine, ports)).toEqual({ ips: new Set(["10.0.0.5"]), ports: new Set() });
    expect(await storage.get(ipAddressKey("10.0.0.7"))).toBeUndefined();
    expect(portsOfRangeAllocation((await storage.get(nodePortsKey))?.value).size).toBe(0);
    // The next round's choice is claimed whole, and kept once the write is stored.
    expect(await claimServiceValues(two("10.0.0.7", "10.0.0.8", 30007), undefined, mine, ports)).toEqual({ ips: new Set(), ports: new Set() });
    await mine.settle(true);
    expect(portsOfRangeAllocation((await storage.get(nodePortsKey))?.value)).toEqual(new Set([30007]));
  });

  it("a claim another holds is reported lost; a failed write undoes its claims, a stored one keeps them", async () => {
    const storage = new MemoryStorage();
    const first = new WriteClaims(storage);
    expect(await claimServiceValues(svc("a", "10.0.0.5", 30005), undefined, first, ports)).toEqual({ ips: new Set(), ports: new Set() });
    const second = new WriteClaims(storage);
    expect(await claimServiceValues(svc("b", "10.0.0.5", 30005), undefined, second, ports)).toEqual({ ips: new Set(["10.0.0.5"]), ports: new Set([30005]) });
    await second.settle(false);
    expect(await storage.get(ipAddressKey("10.0.0.5"))).toBeDefined(); // a's, untouched by b's undo
    await first.settle(false);
    expect(await storage.get(ipAddressKey("10.0.0.5"))).toBeUndefined();
    expect(portsOfRangeAllocation((await storage.get(nodePortsKey))?.value).size).toBe(0);
    const third = new WriteClaims(storage);
    await claimServiceValues(svc("c", "10.0.0.6", 30006), undefined, third, ports);
    await third.settle(true);
    expect(JSON.parse((await storage.get(ipAddressKey("10.0.0.6")))!.value).spec.parentRef).toEqual({ group: "", resource: "services", namespace: "default", name: "c" });
    // An update giving the port up releases it once stored.
    const update = new WriteClaims(storage);
    await claimServiceValues(svc("c", "10.0.0.6"), svc("c", "10.0.0.6", 30006), update, ports);
    expect(portsOfRangeAllocation((await storage.get(nodePortsKey))?.value)).toEqual(new Set([30006]));
    await update.settle(true);
    expect(portsOfRangeAllocation((await storage.get(nodePortsKey))?.value)).toEqual(new Set());
    await storage.close();
  });

  it("the repair claims what stored Services hold and frees what none holds, after its grace", async () => {
    const storage = new MemoryStorage();
    const claims = new WriteClaims(storage);
    const now = Date.now();
    await storage.create(nodePortsKey, rangeAllocation([30001, 30009], ports));
    const orphanOld = ipAddress("10.0.0.8", "gone", 120_000, now);
    const orphanNew = ipAddress("10.0.0.9", "on-its-way", 5_000, now);
    for (const a of [orphanOld, orphanNew]) await storage.create(ipAddressKey(a.metadata.name), JSON.stringify(a));
    const repair = new ServiceClaimsRepair(ports, 60_000, 3);
    const services = [svc("old", "10.0.0.5", 30001), svc("older", "10.0.0.7", 30002)];
    await repair.pass(services, [orphanOld, orphanNew], claims, now);
    expect(JSON.parse((await storage.get(ipAddressKey("10.0.0.7")))!.value).spec.parentRef.name).toBe("older");
    expect(await storage.get(ipAddressKey("10.0.0.8"))).toBeUndefined();
    expect(await storage.get(ipAddressKey("10.0.0.9"))).toBeDefined();
    const taken = async () => portsOfRangeAllocation((await storage.get(nodePortsKey))?.value);
    expect(await taken()).toEqual(new Set([30001, 30002, 30009]));
    // 30009 is held by no Service: freed on the third pass in a row that finds it so.
    await repair.pass(services, [], claims, now);
    expect((await taken()).has(30009)).toBe(true);
    await repair.pass(services, [], claims, now);
    expect(await taken()).toEqual(new Set([30001, 30002]));
    await storage.close();
  });
});
