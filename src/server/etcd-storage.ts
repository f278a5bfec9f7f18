// Opens the etcd3 backend from the etcd flags (loaded by server/core.ts only for
// --storage-backend=etcd3, so other servers never load the gRPC client).
import { readFileSync } from "node:fs";
import { Etcd3Storage } from "../storage/etcd3/etcd3-storage.js";
import type { ServerOptions } from "./options.js";

/** kapi's keys are rooted here; --etcd-prefix takes its place in etcd, as kube-apiserver lays keys out. */
const keyRoot = "/registry";
/** How long start-up waits for etcd before giving up with an error. */
const openTimeoutMs = 10_000;

export async function openEtcdStorage(o: ServerOptions): Promise<Etcd3Storage> {
  const read = (flag: string, file: string | undefined) => {
    if (!file) return undefined;
    try {
      return readFileSync(file);
    } catch (e) {
      throw new Error(`--${flag}: ${(e as Error).message}`);
    }
  };
  const e = o.etcd;
  try {
    return await Etcd3Storage.open({
      endpoints: o.etcdServers,
      tls: { ca: read("etcd-cafile", e.caFile), cert: read("etcd-certfile", e.certFile), key: read("etcd-keyfile", e.keyFile) },
      prefix: e.prefix.replace(/\/+$/, ""),
      keyRoot,
      compactionIntervalMs: e.compactionIntervalMs,
      connectTimeoutMs: openTimeoutMs,
      // A request waits for etcd no longer than the request itself may take (then it is a 504).
      callTimeoutMs: o.requestTimeoutMs > 0 ? o.requestTimeoutMs : 60_000,
      log: o.log,
    });
  } catch (err) {
    throw new Error(`cannot open the etcd3 storage at ${o.etcdServers.join(",")}: ${(err as Error).message}`);
  }
}
