// Keeps the claims of Service cluster IPs and node ports (types/allocation/service-claims.ts) in
// line with the stored Services (upstream: kube-apiserver's ipallocator and portallocator repair
// loops): claims a store written before claims existed lacks, and frees what a server that died
// between claiming and writing left behind. One pass at start and one a minute.
import type { KObject } from "../apimachinery/object.js";
import { runController, type Controller } from "../controller-runtime/controller.js";
import type { Stores } from "../registry/stores.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import { ServiceClaimsRepair } from "../types/allocation/service-claims.js";
import type { PortRange } from "../types/allocation/ranges.js";

export interface ServiceAllocationRepairDeps {
  stores: Stores;
  types: TypeRegistry;
  log(msg: string): void;
  ports: PortRange;
  everyMs?: number;
}

const key = "repair";

export function startServiceAllocationRepair(d: ServiceAllocationRepairDeps): Controller | undefined {
  const services = d.types.get("", "v1", "services");
  if (!services) return undefined;
  const repair = new ServiceClaimsRepair(d.ports);
  const all = async (t: NonNullable<ReturnType<TypeRegistry["get"]>> | undefined): Promise<KObject[]> => (t ? (await d.stores.for(t).listStored("")).items.map((i) => i.object) : []);
  return runController({
    name: "service-allocation-repair",
    setup: (ctx) => ctx.enqueue(key),
    resync: { everyMs: d.everyMs ?? 60_000, keys: () => [key] },
    async reconcile() {
      const ipAddresses = d.types.get("networking.k8s.io", "v1", "ipaddresses");
      await repair.pass(await all(services), await all(ipAddresses), d.stores.claims(d.log));
    },
    onError: (_k, err) => d.log(`kapi: service allocation repair failed: ${(err as Error)?.message ?? String(err)}`),
  });
}
