// LIST 10,000 pods paged by 500, a full traversal, against one JSON.stringify of the same 10,000
// pods (decoded from kapi's own answer). A time ratio: the goal (≤ 0.5) asks kapi to serve a
// paged traversal in half the time it takes merely to serialize the list once.
import { measured } from "../core/context.js";
import type { BenchCase, Session } from "../core/types.js";

export const list: BenchCase = {
  name: "list",
  title: "LIST 10,000 pods paged by 500, full traversal",
  anchorTitle: "one JSON.stringify of the same 10,000 pods (in the client process)",
  unit: "ms",
  better: "lower",
  goal: { op: "<=", value: 0.5, text: "≤ 0.5" },
  async setup(ctx): Promise<Session> {
    const kapi = await ctx.startKapi();
    const namespace = "bench-list";
    const t0 = performance.now();
    await ctx.seedPods(kapi.target, namespace, ctx.opts.listPods);
    const seedMs = performance.now() - t0;
    const job = { target: kapi.target, path: `/api/v1/namespaces/${namespace}/pods`, limit: 500, durationMs: ctx.opts.durationMs };
    let kept = false;
    return {
      async api() {
        const { value: r, serverCpuPct } = await kapi.cpuDuring(() => ctx.client.list({ ...job, keepItems: !kept }));
        kept = true;
        if (r.items !== ctx.opts.listPods) throw new Error(`list: traversal saw ${r.items} of ${ctx.opts.listPods} pods`);
        return measured(r.meanMs, r.cpuPct, serverCpuPct, { traversals: r.traversals, pages: r.pages, bytes: r.bytes, minMs: r.minMs });
      },
      async anchor() {
        const r = await ctx.client.stringify({ durationMs: ctx.opts.durationMs });
        return { value: r.meanMs, detail: { iterations: r.iterations, bytes: r.bytes, minMs: r.minMs } };
      },
      close: () => kapi.stop(),
      notes: [`${ctx.opts.listPods} pods seeded in ${Math.round(seedMs)} ms (${Math.round((ctx.opts.listPods / seedMs) * 1000)} creates/s, 64 in flight)`],
    };
  },
};
