// Anchor for the etcd cases: kapi's own etcd client (src/storage/etcd3/client.ts, over
// @grpc/grpc-js) in its own process, writing and reading pod-sized values straight to etcd with
// the same concurrency as the load on kapi, or timing its own puts to its own watch: what etcd
// and the client library allow with no API server in between.
import { EtcdClient, type RawWatchResponse } from "../../src/storage/etcd3/client.js";
import { cpuPct, serveIpc } from "../core/child.js";
import { Latencies } from "../client/latency.js";
import type { LatencySummary } from "../client/protocol.js";
import { performance as nodePerformance } from "node:perf_hooks";

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
  /** How busy this process's event loop was over the run (%). */
  loopBusyPct: number;
}

/** Create transactions under a prefix by closed-loop writers, each timed from sending it until a watch on the prefix delivers it. */
export interface EtcdWatchLatencyJob {
  endpoint: string;
  writers: number;
  durationMs: number;
  eventTimeoutMs: number;
  valueBytes: number;
  prefix: string;
}

export interface EtcdWatchLatencyResult {
  written: number;
  lost: number;
  latencyMs: LatencySummary;
}

async function watchLatency(job: EtcdWatchLatencyJob): Promise<EtcdWatchLatencyResult> {
  const client = new EtcdClient({ endpoints: [job.endpoint], callTimeoutMs: 10_000 });
  const value = Buffer.from("x".repeat(job.valueBytes));
  const waiting = new Map<string, () => void>();
  const lat = new Latencies();
  const { stream } = client.watchStream()!;
  stream.on("error", () => undefined);
  try {
    const end = Buffer.from(job.prefix);
    end[end.length - 1]!++;
    await new Promise<void>((resolve) => {
      stream.on("data", (res: RawWatchResponse) => {
        if (res.created) return resolve();
        for (const ev of res.events) waiting.get(ev.kv.key.toString("utf8"))?.();
      });
      // As kapi's cache watches: with the previous value (a put of a new key has none).
      stream.write({ create_request: { key: Buffer.from(job.prefix), range_end: end, prev_kv: true } });
    });
    let written = 0;
    let lost = 0;
    let seq = 0;
    const stop = performance.now() + job.durationMs;
    const loop = async () => {
      while (performance.now() < stop) {
        const key = `${job.prefix}${seq++}`;
        let timer: NodeJS.Timeout | undefined;
        const event = new Promise<number | undefined>((resolve) => {
          waiting.set(key, () => resolve(performance.now()));
          timer = setTimeout(() => resolve(undefined), job.eventTimeoutMs);
        });
        const k = Buffer.from(key);
        const sent = performance.now();
        // A create as kapi writes it: a transaction on create_revision = 0.
        const ok = await client.txn({ compare: [{ key: k, target: "CREATE", result: "EQUAL", create_revision: 0 }], success: [{ request_put: { key: k, value } }] }).then(() => true, () => false);
        if (ok) written++;
        const arrived = ok ? await event : undefined;
        clearTimeout(timer);
        waiting.delete(key);
        if (arrived === undefined) lost += ok ? 1 : 0;
        else lat.add(arrived - sent);
      }
    };
    await Promise.all(Array.from({ length: job.writers }, loop));
    return { written, lost, latencyMs: lat.summary() };
  } finally {
    stream.cancel();
    client.close();
  }
}

serveIpc({
  watchLatency,
  async run(job: EtcdRawJob): Promise<EtcdRawResult> {
    const client = new EtcdClient({ endpoints: [job.endpoint], callTimeoutMs: 10_000 });
    const value = Buffer.from("x".repeat(job.valueBytes));
    const getKey = Buffer.from(`${job.prefix}/get`);
    await client.txn({ success: [{ request_put: { key: getKey, value } }] });
    let ops = 0;
    let errors = 0;
    const c0 = process.cpuUsage();
    const l0 = nodePerformance.eventLoopUtilization();
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
    return { ops, errors, elapsedMs, cpuPct: cpuPct(c0, process.cpuUsage(), elapsedMs), loopBusyPct: nodePerformance.eventLoopUtilization(l0).utilization * 100 };
  },
});
