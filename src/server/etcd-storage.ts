// Opens the etcd3 backend from the etcd flags (loaded by server/core.ts only for
// --storage-backend=etcd3, so other servers never load the gRPC client): the cluster of
// --etcd-servers, and one more per distinct server list of --etcd-servers-overrides, whose
// resources' keys are routed to it.
import { readFileSync } from "node:fs";
import type { ResourceType } from "../registry/resource-type.js";
import type { TypeRegistry } from "../registry/type-registry.js";
import { RoutedStorage } from "../storage/common/routed-storage.js";
import { Etcd3Storage } from "../storage/etcd3/etcd3-storage.js";
import type { Storage } from "../storage/interface.js";
import type { ServerOptions } from "./options.js";

/** kapi's keys are rooted here; --etcd-prefix takes its place in etcd, as kube-apiserver lays keys out. */
const keyRoot = "/registry";
/** How long start-up waits for etcd before giving up with an error. */
const openTimeoutMs = 10_000;

export interface EtcdStorage {
  /** What the server reads and writes: the main cluster, each overridden resource's keys routed to its own. */
  storage: Storage;
  /** Every cluster's store (the etcd request metrics observe each). */
  clusters: Etcd3Storage[];
  /** The clusters of --etcd-servers-overrides, one per distinct server list in the order first named (their health checks). */
  overrides: Etcd3Storage[];
}

export async function openEtcdStorage(o: ServerOptions, types: TypeRegistry): Promise<EtcdStorage> {
  const read = (flag: string, file: string | undefined) => {
    if (!file) return undefined;
    try {
      return readFileSync(file);
    } catch (e) {
      throw new Error(`--${flag}: ${(e as Error).message}`);
    }
  };
  const e = o.etcd;
  const tls = { ca: read("etcd-cafile", e.caFile), cert: read("etcd-certfile", e.certFile), key: read("etcd-keyfile", e.keyFile) };
  const open = (endpoints: string[]) =>
    Etcd3Storage.open({
      endpoints,
      tls,
      prefix: e.prefix.replace(/\/+$/, ""),
      keyRoot,
      compactionIntervalMs: e.compactionIntervalMs,
      connectTimeoutMs: openTimeoutMs,
      // A request waits for etcd no longer than the request itself may take (then it is a 504).
      callTimeoutMs: o.requestTimeoutMs > 0 ? o.requestTimeoutMs : 60_000,
      log: o.log,
    }).catch((err: Error) => Promise.reject(new Error(`cannot open the etcd3 storage at ${endpoints.join(",")}: ${err.message}`)));

  const routes = overrideRoutes(o, types);
  const lists = [...new Set(routes.values())];
  const opened = await Promise.allSettled([open(o.etcdServers), ...lists.map((l) => open(l.split(";")))]);
  const clusters = opened.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const failed = opened.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) {
    await Promise.all(clusters.map((c) => c.close()));
    throw failed.reason;
  }
  const [main, ...overrides] = clusters as [Etcd3Storage, ...Etcd3Storage[]];
  if (routes.size === 0) return { storage: main, clusters, overrides };
  const storage = new RoutedStorage(main, [...routes].map(([prefix, list]) => ({ prefix, storage: overrides[lists.indexOf(list)]! })));
  return { storage, clusters, overrides };
}

/**
 * The key prefixes of each overridden resource and its server list (";"-joined, the last override
 * of a resource winning). As kube-apiserver, an override names the resource whose storage it is:
 * a resource stored as another's (events.k8s.io events are stored as core events) follows that
 * one's override and has none of its own, and a resource this server does not build in (a
 * custom resource) has none.
 */
function overrideRoutes(o: ServerOptions, types: TypeRegistry): Map<string, string> {
  const routes = new Map<string, string>();
  const storedAs = (t: ResourceType) => `${t.storageVersion?.group ?? t.group}/${t.resource}`;
  for (const { group, resource, servers } of o.etcd.serversOverrides) {
    const covered = types.all().filter((t) => !t.virtual && storedAs(t) === `${group}/${resource}`);
    if (covered.length === 0) o.log(`kapi: --etcd-servers-overrides: ${group}/${resource} is not the storage of a resource built into this server; ignored`);
    for (const t of covered) routes.set(t.keyPrefix, servers.join(";"));
  }
  return routes;
}
