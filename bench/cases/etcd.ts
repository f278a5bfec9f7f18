// kapi on etcd (--storage-backend=etcd3): creates and gets of pods through kapi, 64 concurrent,
// against raw etcd puts and gets of the same size through the same client library with the same
// concurrency (servers/etcd-raw.ts). One etcd (Debian's etcd-server) for the run, started here.
import { startEtcd, type EtcdProcess } from "../../test/support/etcd.js";
import { Child } from "../core/child.js";
import { measured, type BenchContext, type ServerHandle } from "../core/context.js";
import type { BenchCase, Session } from "../core/types.js";
import type { EtcdRawJob, EtcdRawResult } from "../servers/etcd-raw.js";
import { getPath, storeGetPod } from "./get.js";
import { pod } from "../fixtures.js";

async function etcdSession(ctx: BenchContext, op: "create" | "get"): Promise<Session> {
  const etcd: EtcdProcess = await startEtcd();
  let kapi: ServerHandle | undefined;
  const raw = Child.start("servers/etcd-raw.ts");
  try {
    kapi = await ctx.startKapi("etcd3", ctx.dir(`kapi-etcd-${op}`), { etcdServers: [etcd.url] });
    const ownerUid = await ctx.ensureOwner(kapi.target, "default");
    const probe = await ctx.client.request({ target: kapi.target, method: "POST", path: "/api/v1/namespaces/default/pods", body: JSON.stringify(pod("bench-size", "default", "0", ownerUid)) });
    if (probe.status !== 201) throw new Error(`etcd-${op}: create: HTTP ${probe.status}: ${Buffer.from(probe.body).toString().slice(0, 300)}`);
    if (op === "get") await storeGetPod(ctx, kapi);
    const valueBytes = probe.body.length;
    const k = kapi;
    return {
      async api(pair) {
        const request = op === "create" ? { op, namespace: "default", ownerUid, prefix: `etcd-${op}-${pair}` } : { op, path: getPath };
        const { value: r, serverCpuPct, serverLoopBusyPct } = await k.cpuDuring(() =>
          ctx.client.closed({ target: k.target, proto: "h2", connections: ctx.opts.connections, perConnection: 1, durationMs: ctx.opts.durationMs, request }),
        );
        if (r.requests === 0) throw new Error(`etcd-${op}: no request succeeded (${r.errors} errors; ${r.firstError})`);
        return measured(r.rate, r.cpuPct, serverCpuPct, { errors: r.errors, p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99, loopBusyPct: serverLoopBusyPct });
      },
      async anchor(pair) {
        const job: EtcdRawJob = { endpoint: etcd.url, op: op === "create" ? "put" : "get", concurrency: ctx.opts.connections, durationMs: ctx.opts.durationMs, valueBytes, prefix: `/bench-raw/${op}-${pair}` };
        const r = await raw.call<EtcdRawResult>("run", job);
        return { value: (r.ops / r.elapsedMs) * 1000, serverCpuPct: r.cpuPct, detail: { ops: r.ops, errors: r.errors, loopBusyPct: r.loopBusyPct } };
      },
      close: async () => {
        await Promise.all([k.stop(), raw.stop()]);
        await etcd.cleanup();
      },
      notes: [`etcd ${etcd.url}; stored pod ${valueBytes} bytes (raw value size)`],
    };
  } catch (e) {
    await Promise.allSettled([kapi?.stop(), raw.stop()]);
    await etcd.cleanup();
    throw e;
  }
}

export const createEtcd: BenchCase = {
  name: "create-etcd",
  title: "create pods on etcd (--storage-backend=etcd3), 64 concurrent",
  anchorTitle: "raw etcd puts of the same size, same client library (@grpc/grpc-js), 64 concurrent, own process",
  unit: "writes/s",
  better: "higher",
  goal: { op: ">=", value: 0.8, text: "≥ 0.8" },
  setup: (ctx) => etcdSession(ctx, "create"),
};

export const getEtcd: BenchCase = {
  name: "get-etcd",
  title: "GET one pod on etcd (--storage-backend=etcd3), 64 connections",
  anchorTitle: "raw etcd range reads of one key, same client library, 64 concurrent, own process",
  unit: "req/s",
  better: "higher",
  goal: { op: ">=", value: 0.8, text: "≥ 0.8" },
  setup: (ctx) => etcdSession(ctx, "get"),
};
