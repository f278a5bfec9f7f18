// p99 latency of GET at 50% of kapi's maximum rate, open loop (requests leave on schedule), against
// the bare server's p99 at the very same rate.
import { measured, type ServerHandle } from "../core/context.js";
import type { BenchCase, Session } from "../core/types.js";
import { getPath, kapiAndBare } from "./get.js";

export const p99: BenchCase = {
  name: "p99",
  title: "p99 GET latency at 50% of kapi's max rate, open loop (HTTP/2, 64 connections)",
  anchorTitle: "bare node:http2 server p99 at the same rate",
  unit: "ms",
  better: "lower",
  goal: { op: "<=", value: 2, text: "≤ 2" },
  async setup(ctx): Promise<Session> {
    const { kapi, bare } = await kapiAndBare(ctx);
    // kapi's max rate: the get-h2 median of this run if it ran, else one closed-loop run now.
    let max = ctx.results.find((r) => r.name === "get-h2" && r.api)?.api?.median;
    const source = max ? "get-h2 median of this run" : "a closed-loop run at set-up";
    if (!max) max = (await ctx.client.closed({ target: kapi.target, proto: "h2", connections: ctx.opts.connections, perConnection: 4, durationMs: ctx.opts.durationMs, request: { op: "get", path: getPath } })).rate;
    const rate = Math.max(1, Math.round(max / 2));
    const run = async (s: ServerHandle) => {
      const { value: r, serverCpuPct } = await s.cpuDuring(() => ctx.client.open({ target: s.target, connections: ctx.opts.connections, rate, durationMs: ctx.opts.durationMs, path: getPath }));
      return measured(r.latencyMs.p99, r.cpuPct, serverCpuPct, { achievedRate: r.achievedRate, p50Ms: r.latencyMs.p50, maxMs: r.latencyMs.max, errors: r.errors });
    };
    return {
      api: () => run(kapi),
      anchor: () => run(bare),
      close: async () => void (await Promise.all([kapi.stop(), bare.stop()])),
      notes: [`rate ${rate} req/s = 50% of ${Math.round(max)} req/s (${source})`],
    };
  },
};
