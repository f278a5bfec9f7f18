// Watch fan-out: 1,000 watchers of one namespace while a writer creates pods in it, against a
// bare server that serializes each event once and writes the same buffer to every watcher.
import type { Target, WatchJob } from "../client/protocol.js";
import { measured, type BenchContext, type ServerHandle } from "../core/context.js";
import { pod } from "../fixtures.js";
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
    const sizes = await matchEventSize(ctx, kapi, fanout);
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
      notes: [
        `${ctx.opts.watchers} watchers; writer: 4 concurrent creates for the run's duration; figure = events delivered/s summed over watchers`,
        `objects sent: kapi ${sizes.kapi} bytes (with defaults and managedFields), anchor ${sizes.anchor} bytes (the client's pod padded by an annotation to kapi's size: CPU per event is compared at equal bytes on the wire, as GET's anchor serves kapi's bytes)`,
      ],
    };
  },
};

/**
 * Pads the anchor's objects to the size kapi serves the same pod at: a probe pod created on each
 * (the created object is what a watch event carries), the anchor's pad set, and checked.
 */
async function matchEventSize(ctx: BenchContext, kapi: ServerHandle, fanout: ServerHandle): Promise<{ kapi: number; anchor: number }> {
  const namespace = "watch-probe";
  const ownerUid = await ctx.ensureOwner(kapi.target, namespace);
  const path = `/api/v1/namespaces/${namespace}/pods`;
  const created = async (t: Target, name: string): Promise<number> => {
    const r = await ctx.client.request({ target: t, method: "POST", path, body: JSON.stringify(pod(name, namespace, "0", ownerUid)) });
    if (r.status !== 201) throw new Error(`watch: probe create: HTTP ${r.status}`);
    return r.body.length;
  };
  const kapiBytes = await created(kapi.target, "probe-0");
  // An annotation "pad":"x…" adds its value plus ',"pad":""'.
  await fanout.child.call("setPad", Math.max(0, kapiBytes - (await created(fanout.target, "probe-0")) - 9));
  return { kapi: kapiBytes, anchor: await created(fanout.target, "probe-0") };
}
