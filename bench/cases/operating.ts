// What operating a control plane costs a request: the get-h2 load (one pod by name, 64
// connections, HTTP/2) and the create load (pods, 64 concurrent, durable) against kapi with every
// request audited at Metadata to a log file (kube-apiserver's default blocking log backend) and
// priority and fairness on (its default; the admin the load runs as is in the exempt level),
// anchored by the SAME kapi set-up with both off, measured alternately in the same run. The ratio
// is what is kept of kapi's throughput (goal: at most 10% lost).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RequestSpec } from "../client/protocol.js";
import { measured, type BenchContext, type ServerHandle } from "../core/context.js";
import type { BenchCase, Session } from "../core/types.js";
import { getPath, storeGetPod } from "./get.js";

/** kapi's options that audit every request at Metadata into a log file of the run's own. */
function auditedOptions(ctx: BenchContext) {
  const dir = ctx.dir("audit");
  const policyFile = join(dir, "policy.yaml");
  writeFileSync(policyFile, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n");
  return { audit: { policyFile, logPath: join(dir, "audit.log") } };
}

async function session(ctx: BenchContext, request: (kapi: ServerHandle, pair: number, side: string) => Promise<RequestSpec>, perConnection: number): Promise<Session> {
  const audited = await ctx.startKapi(undefined, undefined, auditedOptions(ctx));
  const plain = await ctx.startKapi(undefined, undefined, { enablePriorityAndFairness: false });
  const run = async (s: ServerHandle, pair: number, side: string) => {
    const spec = await request(s, pair, side);
    const { value: r, serverCpuPct } = await s.cpuDuring(() => ctx.client.closed({ target: s.target, proto: "h2", connections: ctx.opts.connections, perConnection, durationMs: ctx.opts.durationMs, request: spec }));
    if (r.requests === 0) throw new Error(`no request succeeded (${r.errors} errors; ${r.firstError})`);
    return measured(r.rate, r.cpuPct, serverCpuPct, { errors: r.errors, p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99, cpuUsPerRequest: Math.round((serverCpuPct / 100 / r.rate) * 1e6) });
  };
  return {
    api: (pair) => run(audited, pair, "audited"),
    anchor: (pair) => run(plain, pair, "plain"),
    close: async () => void (await Promise.all([audited.stop(), plain.stop()])),
    notes: ["audit policy: every request at Metadata; --audit-log-path in the run's directory, blocking mode (the default); anchor: --enable-priority-and-fairness=false, no audit"],
  };
}

export const getAudit: BenchCase = {
  name: "get-audit",
  title: "GET one pod by name (get-h2's load), audited at Metadata, priority and fairness on",
  anchorTitle: "the same kapi set-up with auditing and priority and fairness off",
  unit: "req/s",
  better: "higher",
  goal: { op: ">=", value: 0.9, text: "≥ 0.9" },
  async setup(ctx) {
    const stored = new Set<ServerHandle>();
    return session(
      ctx,
      async (kapi) => {
        if (!stored.has(kapi)) await storeGetPod(ctx, kapi);
        stored.add(kapi);
        return { op: "get", path: getPath };
      },
      4,
    );
  },
};

export const createAudit: BenchCase = {
  name: "create-audit",
  title: "create pods, 64 concurrent, durable (create's load), audited at Metadata, priority and fairness on",
  anchorTitle: "the same kapi set-up with auditing and priority and fairness off",
  unit: "writes/s",
  better: "higher",
  goal: { op: ">=", value: 0.9, text: "≥ 0.9" },
  async setup(ctx) {
    const owners = new Map<ServerHandle, string>();
    return session(
      ctx,
      async (kapi, pair, side) => {
        if (!owners.has(kapi)) owners.set(kapi, await ctx.ensureOwner(kapi.target, "default"));
        return { op: "create", namespace: "default", ownerUid: owners.get(kapi)!, prefix: `create-${side}-${pair}` };
      },
      1,
    );
  },
};
