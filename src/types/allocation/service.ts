// ClusterIP and NodePort allocation for Services (upstream pkg/registry/core/service/ipallocator,
// portallocator and the service REST allocator), over the set of values other stored Services hold.
import { invalid, type FieldError } from "../../apimachinery/validation.js";
import { needsNodePorts } from "../defaults/core.js";
import { arr, isObj, obj, str, type Obj } from "../validation/helpers.js";
import {
  DEFAULT_SERVICE_CLUSTER_IP_RANGE,
  DEFAULT_SERVICE_NODE_PORT_RANGE,
  ipInRange,
  parseIPv4Range,
  parsePortRange,
  pickFree,
  portInRange,
  type IPRange,
  type PortRange,
} from "./ranges.js";
import { ipv4OfNumber, parseIPv4 } from "../../apimachinery/ip-address.js";

export interface ServiceRanges {
  ip: IPRange;
  ports: PortRange;
}

const rangeCache = new Map<string, ServiceRanges>();

export function serviceRanges(clusterIPRange = DEFAULT_SERVICE_CLUSTER_IP_RANGE, nodePortRange = DEFAULT_SERVICE_NODE_PORT_RANGE): ServiceRanges {
  const k = `${clusterIPRange}|${nodePortRange}`;
  let r = rangeCache.get(k);
  if (!r) rangeCache.set(k, (r = { ip: parseIPv4Range(clusterIPRange), ports: parsePortRange(nodePortRange) }));
  return r;
}

/** What other Services hold: IPs and node ports. */
export interface Holdings {
  ips: Set<string>;
  ports: Set<number>;
}

export function holdingsOf(services: Iterable<Obj>, exclude?: { namespace: string; name: string }): Holdings {
  const h: Holdings = { ips: new Set(), ports: new Set() };
  for (const s of services) {
    const m = obj(s.metadata);
    if (exclude && m.namespace === exclude.namespace && m.name === exclude.name) continue;
    const spec = obj(s.spec);
    for (const ip of [spec.clusterIP, ...arr(spec.clusterIPs)]) if (typeof ip === "string" && ip && ip !== "None") h.ips.add(ip);
    for (const p of arr(spec.ports)) if (isObj(p) && typeof p.nodePort === "number" && p.nodePort > 0) h.ports.add(p.nodePort);
    if (typeof spec.healthCheckNodePort === "number" && spec.healthCheckNodePort > 0) h.ports.add(spec.healthCheckNodePort);
  }
  return h;
}

const isHeadless = (spec: Obj) => spec.clusterIP === "None" || arr(spec.clusterIPs)[0] === "None";

/**
 * Fills spec.clusterIP(s), ipFamilies, ipFamilyPolicy and node ports of `svc` (already defaulted),
 * keeping what `old` had (update). Errors are upstream's allocation errors.
 */
export function allocateService(svc: Obj, old: Obj | undefined, held: Holdings, r: ServiceRanges): FieldError[] {
  const errs: FieldError[] = [];
  const spec = isObj(svc.spec) ? svc.spec : (svc.spec = {});
  const seed = `${str(svc.metadata?.namespace)}/${str(svc.metadata?.name)}`;
  if (spec.type === "ExternalName") {
    if (!old || obj(old.spec).type !== "ExternalName") {
      // ExternalName services have no cluster IP nor families.
      if (spec.clusterIP === "" || spec.clusterIP === undefined) delete spec.clusterIP;
      if (arr(spec.clusterIPs).length === 0) delete spec.clusterIPs;
    }
  } else {
    if (arr(spec.clusterIPs).length === 0 && typeof spec.clusterIP === "string" && spec.clusterIP !== "") spec.clusterIPs = [spec.clusterIP];
    if ((spec.clusterIP === undefined || spec.clusterIP === "") && arr(spec.clusterIPs).length > 0) spec.clusterIP = spec.clusterIPs[0];
    const families = arr(spec.ipFamilies);
    families.forEach((f, i) => {
      if (f !== "IPv4") errs.push(invalid(`spec.ipFamilies[${i}]`, f, "not configured on this cluster"));
    });
    if (spec.ipFamilyPolicy === "RequireDualStack") {
      errs.push(invalid("spec.ipFamilyPolicy", spec.ipFamilyPolicy, "this cluster is not configured for dual-stack services"));
    }
    if (errs.length) return errs;
    if (!isHeadless(spec)) {
      const oldIP = old ? str(obj(old.spec).clusterIP) : "";
      const wanted = str(spec.clusterIP);
      if (wanted === "") {
        // Offset 0 (the first address) stays for the `kubernetes` Service.
        const off = pickFree(r.ip.last, (o) => o === 0 || held.ips.has(ipv4OfNumber(r.ip.base + r.ip.first + o)), seed, 16, 256);
        if (off === undefined) return [invalid("spec.clusterIPs", arr(spec.clusterIPs), "failed to allocate a serviceIP: range is full")];
        const ip = ipv4OfNumber(r.ip.base + r.ip.first + off);
        spec.clusterIP = ip;
        spec.clusterIPs = [ip];
      } else if (wanted !== oldIP && parseIPv4(wanted) !== undefined) {
        if (!ipInRange(r.ip, wanted)) {
          return [invalid("spec.clusterIPs", arr(spec.clusterIPs), `failed to allocate IP ${wanted}: the provided IP (${wanted}) is not in the valid range. The range of valid IPs is ${r.ip.cidr}`)];
        }
        if (held.ips.has(wanted)) return [invalid("spec.clusterIPs", arr(spec.clusterIPs), `failed to allocate IP ${wanted}: provided IP is already allocated`)];
      }
    } else {
      spec.clusterIP = "None";
      spec.clusterIPs = ["None"];
    }
    if (arr(spec.ipFamilies).length === 0) spec.ipFamilies = ["IPv4"];
    if (!spec.ipFamilyPolicy) spec.ipFamilyPolicy = "SingleStack";
  }
  errs.push(...allocateNodePorts(svc, old, held, r.ports, seed));
  return errs;
}

function allocateNodePorts(svc: Obj, old: Obj | undefined, held: Holdings, r: PortRange, seed: string): FieldError[] {
  const spec = obj(svc.spec);
  if (!needsNodePorts(svc)) return [];
  const oldPorts = new Set<number>();
  if (old) for (const p of arr(obj(old.spec).ports)) if (isObj(p) && p.nodePort) oldPorts.add(p.nodePort);
  const mine = new Map<number, number>(); // nodePort -> port index that took it
  const errs: FieldError[] = [];
  const ports = arr(spec.ports);
  // Chosen ports first (conflicts are errors), then the unset ones.
  ports.forEach((p, i) => {
    if (!isObj(p) || !p.nodePort) return;
    const np = Number(p.nodePort);
    if (oldPorts.has(np) || mine.has(np)) {
      mine.set(np, i);
      return;
    }
    if (!portInRange(r, np)) {
      errs.push(invalid(`spec.ports[${i}].nodePort`, np, `provided port is not in the valid range. The range of valid ports is ${r.text}`));
    } else if (held.ports.has(np)) {
      errs.push(invalid(`spec.ports[${i}].nodePort`, np, "provided port is already allocated"));
    }
    mine.set(np, i);
  });
  if (errs.length) return errs;
  ports.forEach((p, i) => {
    if (!isObj(p) || p.nodePort) return;
    const off = pickFree(r.size, (o) => held.ports.has(r.base + o) || mine.has(r.base + o), `${seed}#${i}`, 32, 128);
    if (off === undefined) {
      errs.push(invalid(`spec.ports[${i}].nodePort`, 0, "range is full"));
      return;
    }
    p.nodePort = r.base + off;
    mine.set(p.nodePort, i);
  });
  if (spec.type === "LoadBalancer" && spec.externalTrafficPolicy === "Local" && !spec.healthCheckNodePort) {
    const off = pickFree(r.size, (o) => held.ports.has(r.base + o) || mine.has(r.base + o), `${seed}#hc`, 32, 128);
    if (off !== undefined) spec.healthCheckNodePort = r.base + off;
  }
  return errs;
}

/** Upstream patchAllocatedValues: a PUT that omits allocated values keeps them. */
export function keepAllocatedValues(svc: Obj, old: Obj): void {
  const ns = isObj(svc.spec) ? svc.spec : (svc.spec = {});
  const os = obj(old.spec);
  const needsIP = (t: unknown) => t !== "ExternalName";
  if (needsIP(ns.type) && needsIP(os.type)) {
    if ((ns.clusterIP === undefined || ns.clusterIP === "") && os.clusterIP) ns.clusterIP = os.clusterIP;
    if (arr(ns.clusterIPs).length === 0 && arr(os.clusterIPs).length > 0) ns.clusterIPs = [...os.clusterIPs];
    if (arr(ns.ipFamilies).length === 0 && arr(os.ipFamilies).length > 0) ns.ipFamilies = [...os.ipFamilies];
    if (!ns.ipFamilyPolicy && os.ipFamilyPolicy) ns.ipFamilyPolicy = os.ipFamilyPolicy;
  }
  if (needsNodePorts(svc) && needsNodePorts(old)) {
    const byName = new Map<string, number>();
    for (const p of arr(os.ports)) if (isObj(p) && p.nodePort) byName.set(str(p.name), p.nodePort);
    const used = new Set(arr(ns.ports).map((p) => Number(obj(p).nodePort ?? 0)).filter((n) => n > 0));
    for (const p of arr(ns.ports)) {
      if (!isObj(p) || p.nodePort) continue;
      const v = byName.get(str(p.name));
      if (v && !used.has(v)) {
        p.nodePort = v;
        used.add(v);
      }
    }
    if (!ns.healthCheckNodePort && os.healthCheckNodePort && ns.externalTrafficPolicy === "Local") ns.healthCheckNodePort = os.healthCheckNodePort;
  }
}

/** The `kubernetes` Service in `default` that fronts the API server itself. */
export function kubernetesService(r: ServiceRanges = serviceRanges(), securePort = 6443): Obj {
  const ip = ipv4OfNumber(r.ip.base + r.ip.first);
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "kubernetes", namespace: "default", labels: { component: "apiserver", provider: "kubernetes" } },
    spec: {
      clusterIP: ip,
      clusterIPs: [ip],
      internalTrafficPolicy: "Cluster",
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: securePort }],
      sessionAffinity: "None",
      type: "ClusterIP",
    },
  };
}


