// Which store `kapi serve` uses, from --storage-backend and --etcd-servers: a real etcd is the
// etcd3 backend; kapi's etcd stand-in (what envtest starts from `kapi envtest-assets`) means the
// objects are kept in memory.
import { request } from "node:http";
import { goQuote } from "../../apimachinery/go-quote.js";
import type { ServeFlags } from "../flags.js";
import { standInHeader, standInValue } from "./etcd-standin.js";

export type StandInProbe = (server: string) => Promise<boolean>;

/** Sets storageBackend (and, for the stand-in, dataDir) on the flags; throws a message naming the problem. */
export async function chooseStorage(f: ServeFlags, isStandIn: StandInProbe = probeStandIn): Promise<void> {
  if (f.etcdServers.length === 0) {
    if (f.storageBackendFlag === "etcd3") throw new Error("--etcd-servers must be specified");
    f.storageBackend = f.storageBackendFlag ?? "sqlite";
    return;
  }
  if (f.storageBackendFlag && f.storageBackendFlag !== "etcd3") throw new Error(`--etcd-servers needs --storage-backend=etcd3 (its default), not ${f.storageBackendFlag}`);
  const standIns = await Promise.all(f.etcdServers.map((s) => isStandIn(s)));
  if (!standIns.some(Boolean)) {
    f.storageBackend = "etcd3";
    return;
  }
  if (!standIns.every(Boolean)) throw new Error("--etcd-servers: kapi's etcd stand-in cannot be listed together with a real etcd");
  f.storageBackend = "memory";
  // envtest runs the server in the test's package directory: keep kapi's generated files in the
  // cert dir it hands over (and removes afterwards) instead of a ./.kapi there.
  if (!f.dataDirGiven && f.certDir) f.dataDir = f.certDir;
}

/** GET <server>/health: true when kapi's stand-in answers; a server that cannot be reached is an error. */
export function probeStandIn(server: string, timeoutMs = 5000): Promise<boolean> {
  let url: URL;
  try {
    url = new URL("/health", server);
  } catch {
    return Promise.reject(new Error(`--etcd-servers: invalid URL ${goQuote(server)}`));
  }
  if (url.protocol !== "http:") return Promise.resolve(false);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "GET", timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 && res.headers[standInHeader] === standInValue);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", (e) => reject(new Error(`--etcd-servers: cannot reach ${server}: ${e.message}`)));
    req.end();
  });
}
