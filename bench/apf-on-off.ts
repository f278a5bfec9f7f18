// API Priority and Fairness on against off, side by side: two kapi servers (memory storage, one
// with --enable-priority-and-fairness=false), each loaded in turn (A B A B …) with the get-h2
// load (one pod by name, 64 connections × 4 HTTP/2 streams) as the admin (system:masters: the
// exempt level) and as a token user (the global-default level: classified, queued, dispatched),
// and with the create load. Prints req/s and the server CPU per request of each, and their ratio.
// `npx tsx bench/apf-on-off.ts [--pairs N] [--duration MS]`
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BenchContext, defaultOptions } from "./core/context.js";
import { storeGetPod, getPath } from "./cases/get.js";
import type { Target } from "./client/protocol.js";

const args = process.argv.slice(2);
const arg = (name: string, d: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const ctx = new BenchContext({ ...defaultOptions, storage: "memory", pairs: arg("--pairs", 3), durationMs: arg("--duration", 3000) });
const token = "apf-bench-user-token-0123456789abcdef";
const tokens = join(ctx.workDir, "tokens.csv");
writeFileSync(tokens, `${token},bench-user,1\n`);

async function main(): Promise<void> {
  const on = await ctx.startKapi("memory", ctx.dir("on"), { tokenAuthFile: tokens });
  const off = await ctx.startKapi("memory", ctx.dir("off"), { tokenAuthFile: tokens, enablePriorityAndFairness: false });
  for (const s of [on, off]) await storeGetPod(ctx, s);
  const ownerUid = { on: await ctx.ensureOwner(on.target, "default"), off: await ctx.ensureOwner(off.target, "default") };
  const asUser = (t: Target): Target => ({ ...t, bearerToken: token });
  const loads = {
    "get-h2 admin": (t: Target) => ({ target: t, proto: "h2" as const, connections: 64, perConnection: 4, request: { op: "get" as const, path: getPath } }),
    "get-h2 user": (t: Target) => ({ target: asUser(t), proto: "h2" as const, connections: 64, perConnection: 4, request: { op: "get" as const, path: getPath } }),
    "create admin": (t: Target, side: "on" | "off", pair: number) => ({ target: t, proto: "h2" as const, connections: 64, perConnection: 1, request: { op: "create" as const, namespace: "default", ownerUid: ownerUid[side], prefix: `c-${side}-${pair}` } }),
  };
  for (const [name, load] of Object.entries(loads)) {
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    for (let pair = 0; pair < ctx.opts.pairs; pair++) {
      const m: Record<string, { rate: number; cpuPerReqUs: number; errors: number }> = {};
      for (const [side, s] of [["on", on], ["off", off]] as const) {
        const { value: r, serverCpuPct } = await s.cpuDuring(() => ctx.client.closed({ ...load(s.target, side, pair), durationMs: ctx.opts.durationMs }));
        m[side] = { rate: r.rate, cpuPerReqUs: ((serverCpuPct / 100) * 1e6) / r.rate, errors: r.errors };
      }
      ratios.push(m.on!.rate / m.off!.rate);
      cpuRatios.push(m.on!.cpuPerReqUs / m.off!.cpuPerReqUs);
      const f = (x: { rate: number; cpuPerReqUs: number; errors: number }) => `${Math.round(x.rate)} req/s, ${Math.round(x.cpuPerReqUs)} µs CPU/req${x.errors ? `, ${x.errors} errors` : ""}`;
      process.stdout.write(`${name} pair ${pair + 1}: on ${f(m.on!)} | off ${f(m.off!)} | rate on/off ${(m.on!.rate / m.off!.rate).toFixed(3)}, CPU/req on/off ${(m.on!.cpuPerReqUs / m.off!.cpuPerReqUs).toFixed(3)}\n`);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    process.stdout.write(`${name}: median rate on/off ${median(ratios).toFixed(3)}, median CPU per request on/off ${median(cpuRatios).toFixed(3)}\n`);
  }
  await Promise.all([on.stop(), off.stop()]);
}

main()
  .catch((e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 1;
  })
  .finally(() => void ctx.close());
