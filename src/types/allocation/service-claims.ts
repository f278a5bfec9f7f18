// A Service's cluster IPs and node ports claimed in storage, so that replicas over one storage never
// hand one out twice. As upstream 1.34: each cluster IP is an IPAddress object (networking.k8s.io/v1,
// named by the address, its parentRef the Service), created only if absent — the
// MultiCIDRServiceAllocator with no bitmap dual write; node ports are bits of one RangeAllocation
// at /registry/ranges/servicenodeports, compare-and-swapped.
import { randomUUID } from "node:crypto";
import { nowTimestamp } from "../../apimachinery/object.js";
import type { Claims } from "../../registry/claims.js";
import { str, type Obj } from "../validation/helpers.js";
import { parsePortRange, type PortRange } from "./ranges.js";
import { holdingsOf, type Holdings } from "./service.js";

export const ipAddressKey = (ip: string): string => `/registry/networking.k8s.io/ipaddresses/${ip}`;
export const nodePortsKey = "/registry/ranges/servicenodeports";

const owner = (svc: Obj) => ({ namespace: str(svc.metadata?.namespace), name: str(svc.metadata?.name) });

function ipAddressObject(ip: string, svc: Obj): Obj {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "IPAddress",
    metadata: {
      name: ip,
      uid: randomUUID(),
      creationTimestamp: nowTimestamp(),
      labels: { "ipaddress.kubernetes.io/ip-family": "IPv4", "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io" },
    },
    spec: { parentRef: { group: "", resource: "services", ...owner(svc) } },
  };
}

/** Whether a stored IPAddress names this Service as its parent. */
function parentIs(svc: Obj): (stored: string) => boolean {
  const { namespace, name } = owner(svc);
  return (stored) => {
    try {
      const ref = (JSON.parse(stored) as { spec?: { parentRef?: { resource?: string; namespace?: string; name?: string } } }).spec?.parentRef;
      return ref?.resource === "services" && ref.namespace === namespace && ref.name === name;
    } catch {
      return false;
    }
  };
}

/** The ports a RangeAllocation's bitmap marks taken (bit i of the range is port base + i). */
export function portsOfRangeAllocation(stored: string | undefined): Set<number> {
  const out = new Set<number>();
  if (!stored) return out;
  const ra = JSON.parse(stored) as { range?: string; data?: string };
  const r = parsePortRange(ra.range ?? "");
  const bits = Buffer.from(ra.data ?? "", "base64");
  for (let i = 0; i < r.size && i >> 3 < bits.length; i++) if (bits[i >> 3]! & (1 << (i & 7))) out.add(r.base + i);
  return out;
}

export function rangeAllocation(ports: Iterable<number>, r: PortRange): string {
  const bits = Buffer.alloc(Math.ceil(r.size / 8));
  for (const p of ports) {
    const i = p - r.base;
    if (i >= 0 && i < r.size) bits[i >> 3]! |= 1 << (i & 7);
  }
  return JSON.stringify({ kind: "RangeAllocation", apiVersion: "v1", metadata: { name: "servicenodeports" }, range: r.text, data: bits.toString("base64") });
}

/**
 * Marks `add` taken and `remove` free; `add` is refused whole (nothing written) when one is taken
 * already. A release keeps the stored range (it may run with no --service-node-port-range at hand).
 */
function changePorts(claims: Claims, r: PortRange, add: readonly number[], remove: readonly number[]): Promise<number[]> {
  return claims.modify(nodePortsKey, (stored) => {
    const taken = portsOfRangeAllocation(stored);
    const busy = add.filter((p) => taken.has(p));
    if (busy.length) return { result: busy };
    if (add.length === 0 && !remove.some((p) => taken.has(p))) return { result: [] };
    for (const p of add) taken.add(p);
    for (const p of remove) taken.delete(p);
    const storedRange = stored ? (JSON.parse(stored) as { range?: string }).range : undefined;
    return { value: rangeAllocation(taken, add.length === 0 && storedRange ? parsePortRange(storedRange) : r), result: [] };
  });
}

/**
 * Claims the values `svc` takes that `old` did not hold; returns those another holds (none: all
 * claimed). The values `old` held and `svc` gives up are released once the write is stored.
 */
export async function claimServiceValues(svc: Obj, old: Obj | undefined, claims: Claims, ports: PortRange): Promise<Holdings> {
  const now = holdingsOf([svc]);
  const before = old ? holdingsOf([old]) : { ips: new Set<string>(), ports: new Set<number>() };
  const lost: Holdings = { ips: new Set(), ports: new Set() };
  const isParent = parentIs(svc);
  const claimedIPs: string[] = [];
  for (const ip of now.ips) {
    if (before.ips.has(ip)) continue;
    if (await claims.createOnce(ipAddressKey(ip), JSON.stringify(ipAddressObject(ip, svc)), isParent)) claimedIPs.push(ip);
    else lost.ips.add(ip);
  }
  // A lost address means the caller chooses again: give back this round's addresses now and claim
  // no port, so that no value claimed for a choice that was dropped stays taken (a node port
  // claimed in a dropped round would look held by another, and a small range would fill up).
  const added = [...now.ports].filter((p) => !before.ports.has(p));
  if (lost.ips.size) {
    await Promise.all(claimedIPs.map((ip) => claims.remove(ipAddressKey(ip), isParent)));
    // Which ports are taken is still worth knowing for the next choice: read, without writing.
    const busy = await claims.modify(nodePortsKey, (stored) => ({ result: added.filter((p) => portsOfRangeAllocation(stored).has(p)) }));
    for (const p of busy) lost.ports.add(p);
    return lost;
  }
  if (added.length) {
    const busy = await changePorts(claims, ports, added, []);
    for (const p of busy) lost.ports.add(p);
    if (busy.length === 0) claims.onFailure(() => changePorts(claims, ports, [], added));
  }
  const givenUp = { ips: [...before.ips].filter((ip) => !now.ips.has(ip)), ports: [...before.ports].filter((p) => !now.ports.has(p)) };
  if (givenUp.ips.length || givenUp.ports.length) claims.onStored(() => release(givenUp, isParent, claims, ports));
  return lost;
}

/** A removed Service's values go back to the pool. */
export function releaseServiceValues(svc: Obj, claims: Claims, ports: PortRange): Promise<void> {
  const held = holdingsOf([svc]);
  return release({ ips: [...held.ips], ports: [...held.ports] }, parentIs(svc), claims, ports);
}

async function release(values: { ips: string[]; ports: number[] }, isParent: (stored: string) => boolean, claims: Claims, ports: PortRange): Promise<void> {
  await Promise.all(values.ips.map((ip) => claims.remove(ipAddressKey(ip), isParent)));
  if (values.ports.length) await changePorts(claims, ports, [], values.ports);
}

/**
 * What a repair of the claims does in one pass (upstream's ipallocator and portallocator repair
 * loops): every value a stored Service holds is claimed (an IPAddress created where missing: a
 * store written before claims existed); an IPAddress whose Service no longer holds its address
 * is deleted once older than `graceMs` (a write that claimed it may still be on its way); a node
 * port marked taken that no Service holds is freed once seen so on `leakRounds` passes in a row.
 */
export class ServiceClaimsRepair {
  private leaked = new Map<number, number>();

  constructor(
    private readonly ports: PortRange,
    private readonly graceMs = 60_000,
    private readonly leakRounds = 3,
  ) {}

  async pass(services: readonly Obj[], ipAddresses: readonly Obj[], claims: Claims, now = Date.now()): Promise<void> {
    const byIP = new Map<string, Obj>();
    const heldPorts = new Set<number>();
    for (const svc of services) {
      const h = holdingsOf([svc]);
      for (const ip of h.ips) byIP.set(ip, svc);
      for (const p of h.ports) heldPorts.add(p);
    }
    for (const [ip, svc] of byIP) await claims.createOnce(ipAddressKey(ip), JSON.stringify(ipAddressObject(ip, svc)), () => true);
    for (const addr of ipAddresses) {
      const ip = str(addr.metadata?.name);
      const managed = addr.metadata?.labels?.["ipaddress.kubernetes.io/managed-by"] === "ipallocator.k8s.io";
      const holder = byIP.get(ip);
      const orphan = !holder || !parentIs(holder)(JSON.stringify(addr));
      if (managed && orphan && now - Date.parse(str(addr.metadata?.creationTimestamp)) > this.graceMs) {
        const uid = str(addr.metadata?.uid);
        await claims.remove(ipAddressKey(ip), (stored) => (JSON.parse(stored) as Obj).metadata?.uid === uid);
      }
    }
    // The change may run again after a lost race: it counts from the rounds before this pass.
    const before = this.leaked;
    let after = before;
    await claims.modify(nodePortsKey, (stored) => {
      const taken = portsOfRangeAllocation(stored);
      after = new Map();
      let changed = false;
      for (const p of heldPorts) if (!taken.has(p)) (taken.add(p), (changed = true));
      for (const p of [...taken]) {
        if (heldPorts.has(p)) continue;
        const rounds = (before.get(p) ?? 0) + 1;
        if (rounds < this.leakRounds) after.set(p, rounds);
        else (taken.delete(p), (changed = true));
      }
      return changed ? { value: rangeAllocation(taken, this.ports), result: undefined } : { result: undefined };
    });
    this.leaked = after;
  }
}
