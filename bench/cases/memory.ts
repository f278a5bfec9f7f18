// Memory: growth per stored pod of a kapi process's live memory (heap used plus what lives
// outside the heap, Buffers; after forced GCs), against the pod's JSON size as kapi returns it.
// RSS growth is reported beside it but not judged: freed pages go back to the system or not as
// the allocator decides, so over 10,000 pods it swings by more than the figure (it came out
// negative in runs of one hour). Each run is a fresh server; the "anchor" is the JSON size
// measured from that same server. Goal: issue 26's ≤ 0.5 of the pod's JSON size.
import { measured } from "../core/context.js";
import type { BenchCase, Session } from "../core/types.js";

export const memory: BenchCase = {
  name: "memory",
  title: "memory: live memory (heap + external) per stored pod (10,000 pods)",
  anchorTitle: "the pod's JSON size as served",
  unit: "bytes",
  better: "lower",
  goal: { op: "<=", value: 0.5, text: "≤ 0.5" },
  async setup(ctx): Promise<Session> {
    let jsonBytes = 0;
    const n = ctx.opts.memoryPods;
    return {
      async api() {
        const kapi = await ctx.startKapi();
        try {
          // Warm up first so code, caches and pools are in the baseline, not in the growth.
          await ctx.seedPods(kapi.target, "bench-warm", 200);
          const before = await kapi.child.call<{ rss: number; live: number }>("memory");
          const t0 = performance.now();
          await ctx.seedPods(kapi.target, "bench-memory", n);
          const ms = performance.now() - t0;
          const after = await kapi.child.call<{ rss: number; live: number }>("memory");
          const g = await ctx.client.request({ target: kapi.target, method: "GET", path: "/api/v1/namespaces/bench-memory/pods/seed-0-0" });
          if (g.status !== 200) throw new Error(`memory: GET a seeded pod: HTTP ${g.status}`);
          jsonBytes = g.body.length;
          return measured((after.live - before.live) / n, 0, 0, { rssPerPod: Math.round((after.rss - before.rss) / n), liveBeforeMiB: before.live / 2 ** 20, liveAfterMiB: after.live / 2 ** 20, rssBeforeMiB: before.rss / 2 ** 20, rssAfterMiB: after.rss / 2 ** 20, seedMs: ms });
        } finally {
          await kapi.stop();
        }
      },
      anchor: async () => ({ value: jsonBytes }),
      close: async () => undefined,
      notes: [`${n} pods per run, storage ${ctx.opts.storage}, fresh server per run, heap used + external after two forced GCs (RSS growth in each pair's detail)`],
    };
  },
};
