// LIST 10,000 pods paged by 500, a full traversal (limit + continue, one page after another),
// against a bare server sending the very pages kapi sent, pre-encoded, over the same TLS and
// HTTP/2 (bench/servers/pages.ts). A time ratio: issue 26's goal is ≤ 1.2, serialize once and
// serve many. Server CPU per traversal is reported for both, and judged when the client saturates.
import { measured, type ServerHandle } from "../core/context.js";
import type { BenchCase, Session } from "../core/types.js";

export const list: BenchCase = {
  name: "list",
  title: "LIST 10,000 pods paged by 500, full traversal",
  anchorTitle: "bare server sending kapi's pages pre-encoded (bench/servers/pages.ts), same TLS and HTTP/2",
  unit: "ms",
  better: "lower",
  goal: { op: "<=", value: 1.2, text: "≤ 1.2" },
  async setup(ctx): Promise<Session> {
    const kapi = await ctx.startKapi();
    const namespace = "bench-list";
    const t0 = performance.now();
    await ctx.seedPods(kapi.target, namespace, ctx.opts.listPods);
    const seedMs = performance.now() - t0;
    const job = { path: `/api/v1/namespaces/${namespace}/pods`, limit: 500 };
    // Every page parsed once (the cheap count checked against it) and kept for the anchor. No
    // write follows, so every later traversal of kapi serves these same bytes.
    const pagesDir = ctx.dir("list-pages");
    const v = await ctx.client.listVerify({ target: kapi.target, ...job, captureDir: pagesDir });
    if (v.items !== ctx.opts.listPods) throw new Error(`list: traversal saw ${v.items} of ${ctx.opts.listPods} pods`);
    const pages = await ctx.startAnchor("servers/pages.ts", { pagesDir });
    const run = async (s: ServerHandle) => {
      const { value: r, serverCpuPct, serverCpuMs } = await s.cpuDuring(() => ctx.client.list({ target: s.target, ...job, durationMs: ctx.opts.durationMs }));
      if (r.items !== v.items || r.pages !== v.pages) throw new Error(`list: traversal saw ${r.items} items in ${r.pages} pages, kapi served ${v.items} in ${v.pages}`);
      const m = measured(r.meanMs, r.cpuPct, serverCpuPct, { traversals: r.traversals, pages: r.pages, bytes: r.bytes, minMs: r.minMs });
      // Per traversal served in the window (the untimed warm-up one included): what one full list costs the server.
      m.serverCpuUsPerOp = (serverCpuMs * 1000) / r.served;
      return m;
    };
    return {
      api: () => run(kapi),
      anchor: () => run(pages),
      close: async () => void (await Promise.all([kapi.stop(), pages.stop()])),
      notes: [
        `${ctx.opts.listPods} pods seeded in ${Math.round(seedMs)} ms (${Math.round((ctx.opts.listPods / seedMs) * 1000)} creates/s, 64 in flight)`,
        `${v.pages} pages, ${v.bytes} bytes per traversal; item counts by scan, checked once against a full parse`,
      ],
    };
  },
};
