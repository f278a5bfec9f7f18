// create and update, 64 concurrent, durable (sqlite), against raw SQLite (kapi's driver) single-row
// durable commits/s in its own process. kapi's group commit should turn many concurrent requests
// into one fsync, so it can beat one-commit-per-write (goal ≥ 2).
import { join } from "node:path";
import { Child } from "../core/child.js";
import { measured, type BenchContext } from "../core/context.js";
import type { BenchCase, Session } from "../core/types.js";
import type { CommitsResult } from "../servers/sqlite-commits.js";
import { pod } from "../fixtures.js";

async function writeSession(ctx: BenchContext, op: "create" | "update"): Promise<Session> {
  const kapi = await ctx.startKapi();
  const ownerUid = await ctx.ensureOwner(kapi.target, "default");
  // The anchor writes rows as big as the pods kapi stores.
  const probe = await ctx.client.request({ target: kapi.target, method: "POST", path: "/api/v1/namespaces/default/pods", body: JSON.stringify(pod("bench-size", "default", "0", ownerUid)) });
  if (probe.status !== 201) throw new Error(`${op}: create: HTTP ${probe.status}: ${Buffer.from(probe.body).toString().slice(0, 300)}`);
  const rowBytes = probe.body.length;
  const sqlite = Child.start("servers/sqlite-commits.ts");
  const dbDir = ctx.dir("sqlite-anchor");
  return {
    async api(pair) {
      const { value: r, serverCpuPct } = await kapi.cpuDuring(() =>
        ctx.client.closed({
          target: kapi.target,
          proto: "h2",
          connections: ctx.opts.connections,
          perConnection: 1,
          durationMs: ctx.opts.durationMs,
          request: { op, namespace: "default", ownerUid, prefix: `${op}-${pair}` },
        }),
      );
      if (r.requests === 0) throw new Error(`${op}: no request succeeded (${r.errors} errors; ${r.firstError})`);
      return measured(r.rate, r.cpuPct, serverCpuPct, { errors: r.errors, p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99 });
    },
    async anchor(pair) {
      const r = await sqlite.call<CommitsResult>("run", { path: join(dbDir, `anchor-${pair}.db`), durationMs: ctx.opts.durationMs, rowBytes });
      return { value: (r.commits / r.elapsedMs) * 1000, serverCpuPct: r.cpuPct, detail: { commits: r.commits } };
    },
    close: async () => void (await Promise.all([kapi.stop(), sqlite.stop()])),
    notes: [`storage ${ctx.opts.storage}; stored pod ${rowBytes} bytes (anchor row size)`],
  };
}

const anchorTitle = "raw SQLite single-row durable commits/s (WAL, synchronous=FULL; the driver kapi picks), own process";

export const create: BenchCase = {
  name: "create",
  title: "create pods, 64 concurrent, durable",
  anchorTitle,
  unit: "writes/s",
  better: "higher",
  goal: { op: ">=", value: 2, text: "≥ 2" },
  setup: (ctx) => writeSession(ctx, "create"),
};

export const update: BenchCase = {
  name: "update",
  title: "update pods (PUT with resourceVersion), 64 concurrent, durable",
  anchorTitle,
  unit: "writes/s",
  better: "higher",
  goal: { op: ">=", value: 1.8, relativeTo: { bench: "create", factor: 0.9 }, text: "≥ 0.9 × create ratio" },
  setup: (ctx) => writeSession(ctx, "update"),
};
