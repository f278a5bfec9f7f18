// Anchor for the etcd cases: kapi's own etcd client (src/storage/etcd3/client.ts, over
// @grpc/grpc-js) in its own process, writing and reading pod-sized values straight to etcd with
// the same concurrency as the load on kapi: what etcd and the client library allow with no API
// server in between.
import { EtcdClient } from "../../src/storage/etcd3/client.js";
import { cpuPct, serveIpc } from "../core/child.js";

export interface EtcdRawJob {
  endpoint: string;
  op: "put" | "get";
  concurrency: number;
  durationMs: number;
  valueBytes: number;
  prefix: string;
}

export interface EtcdRawResult {
  ops: number;
  errors: number;
  elapsedMs: number;
  cpuPct: number;
}

serveIpc({
  async run(job: EtcdRawJob): Promise<EtcdRawResult> {
    const client = new EtcdClient({ endpoints: [job.endpoint], callTimeoutMs: 10_000 });
    const value = Buffer.from("x".repeat(job.valueBytes));
    const getKey = Buffer.from(`${job.prefix}/get`);
    await client.txn({ success: [{ request_put: { key: getKey, value } }] });
    let ops = 0;
    let errors = 0;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const end = t0 + job.durationMs;
    // A put is a one-operation transaction: the same RPC kapi's create makes, without its compare.
    const one = (i: number) =>
      job.op === "put" ? client.txn({ success: [{ request_put: { key: Buffer.from(`${job.prefix}/p-${i}`), value } }] }) : client.range({ key: getKey });
    const worker = async (w: number) => {
      for (let i = 0; performance.now() < end; i++) {
        try {
          await one(w * 1e7 + i);
          ops++;
        } catch {
          errors++;
        }
      }
    };
    await Promise.all(Array.from({ length: job.concurrency }, (_, w) => worker(w)));
    const elapsedMs = performance.now() - t0;
    client.close();
    return { ops, errors, elapsedMs, cpuPct: cpuPct(c0, process.cpuUsage(), elapsedMs) };
  },
});
