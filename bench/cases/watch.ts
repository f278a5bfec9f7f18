// Watch fan-out: 1,000 watchers of one namespace while a writer creates pods in it, against a
// bare server that serializes each event once and writes the same buffer to every watcher.
import type { WatchJob } from "../client/protocol.js";
import { measured, type ServerHandle } from "../core/context.js";
import type { BenchCase, Session } from "../core/types.js";

export const watch: BenchCase = {
  name: "watch",
  title: "watch fan-out, 1,000 watchers (HTTP/2, 100 streams per connection)",
  anchorTitle: "bare serialize-once fan-out server (bench/servers/fanout.ts), same TLS",
  unit: "events/s",
  better: "higher",
  goal: { op: ">=", value: 0.8, text: "≥ 0.8" },
  async setup(ctx): Promise<Session> {
    const kapi = await ctx.startKapi();
    const fanout = await ctx.startAnchor("servers/fanout.ts", {});
    const run = async (s: ServerHandle, pair: number, isKapi: boolean) => {
      // A fresh namespace per run, so no watcher starts with a backlog of earlier pods.
      const namespace = `watch-${pair}`;
      const job: WatchJob = {
        target: s.target,
        watchers: ctx.opts.watchers,
        perConnection: 100,
        namespace,
        ownerUid: isKapi ? await ctx.ensureOwner(s.target, namespace) : "00000000-0000-0000-0000-000000000000",
        writers: 4,
        durationMs: ctx.opts.durationMs,
        drainMs: 3000,
      };
      const { value: r, serverCpuPct } = await s.cpuDuring(() => ctx.client.watch(job));
      return measured(r.deliveriesPerSec, r.cpuPct, serverCpuPct, { written: r.written, delivered: r.delivered, expected: r.expected, cutOff: r.cutOff });
    };
    return {
      api: (pair) => run(kapi, pair, true),
      anchor: (pair) => run(fanout, pair, false),
      close: async () => void (await Promise.all([kapi.stop(), fanout.stop()])),
      notes: [`${ctx.opts.watchers} watchers; writer: 4 concurrent creates for the run's duration; figure = events delivered/s summed over watchers`],
    };
  },
};
