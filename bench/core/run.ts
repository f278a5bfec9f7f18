// Runs benchmarks: set up, then kapi and anchor alternately (A B A B …) for the configured number
// of pairs, a ratio per pair. A failing benchmark is recorded and the next one still runs.
import { allCases } from "../cases/index.js";
import { describeMachine, type Machine } from "../report/machine.js";
import { BenchContext, type BenchOptions } from "./context.js";
import { judge, judgedText, mark, stats } from "./stats.js";
import { clientSaturatedPct, cpuUsPerOp, isThroughput } from "./cpu-per-op.js";
import type { BenchCase, BenchResult, Measurement, Pair } from "./types.js";

export interface RunReport {
  startedAt: string;
  command: string;
  machine: Machine;
  options: Omit<BenchOptions, "log">;
  results: BenchResult[];
}

export function selectCases(names: string[]): BenchCase[] {
  if (!names.length) return allCases;
  const unknown = names.filter((n) => !allCases.some((c) => c.name === n));
  if (unknown.length) throw new Error(`unknown benchmark(s): ${unknown.join(", ")} (known: ${allCases.map((c) => c.name).join(", ")})`);
  return allCases.filter((c) => names.includes(c.name));
}

export function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  return a >= 100 ? Math.round(x).toLocaleString("en-US") : a >= 10 ? x.toFixed(1) : a >= 1 ? x.toFixed(2) : x.toFixed(3);
}

function cpuText(m: Measurement): string {
  const parts: string[] = [];
  if (m.clientCpuPct) parts.push(`client ${Math.round(m.clientCpuPct)}%`);
  if (m.serverCpuPct) parts.push(`server ${Math.round(m.serverCpuPct)}%${m.serverCpuUsPerOp ? ` = ${fmt(m.serverCpuUsPerOp)} µs/op` : ""}`);
  const { p50Ms, p99Ms, loopBusyPct } = m.detail ?? {};
  if (typeof loopBusyPct === "number") parts.push(`server event loop busy ${Math.round(loopBusyPct)}%`);
  const cpu = parts.length ? `CPU ${parts.join(", ")}` : "";
  const latency = typeof p50Ms === "number" && typeof p99Ms === "number" ? `p50 ${fmt(p50Ms)} ms, p99 ${fmt(p99Ms)} ms` : "";
  const all = [cpu, latency].filter(Boolean).join("; ");
  return all ? ` (${all})` : "";
}

async function runCase(ctx: BenchContext, c: BenchCase): Promise<BenchResult> {
  const log = ctx.opts.log;
  const t0 = performance.now();
  const result: BenchResult = { name: c.name, title: c.title, anchorTitle: c.anchorTitle, unit: c.unit, better: c.better, goal: c.goal, pairs: [], notes: [], durationMs: 0 };
  log(`\n▶ ${c.name}: ${c.title}\n  anchor: ${c.anchorTitle}`);
  try {
    const session = await c.setup(ctx);
    result.notes.push(...session.notes);
    for (const n of session.notes) log(`  · ${n}`);
    try {
      for (let i = 0; i < ctx.opts.pairs; i++) {
        const api = perOp(c, await session.api(i));
        const anchor = perOp(c, await session.anchor(i));
        const pair: Pair = { api, anchor, ratio: api.value / anchor.value };
        if (api.serverCpuUsPerOp && anchor.serverCpuUsPerOp) pair.cpuRatio = api.serverCpuUsPerOp / anchor.serverCpuUsPerOp;
        result.pairs.push(pair);
        const cpuRatio = pair.cpuRatio ? ` | server CPU/op ratio ${fmt(pair.cpuRatio)}` : "";
        log(`  pair ${i + 1}: kapi ${fmt(api.value)} ${c.unit}${cpuText(api)} | anchor ${fmt(anchor.value)} ${c.unit}${cpuText(anchor)} | ratio ${fmt(pair.ratio)}${cpuRatio}`);
      }
    } finally {
      await session.close();
    }
    result.api = stats(result.pairs.map((p) => p.api.value));
    result.anchor = stats(result.pairs.map((p) => p.anchor.value));
    result.ratio = stats(result.pairs.map((p) => p.ratio));
    const cpuRatios = result.pairs.map((p) => p.cpuRatio);
    if (cpuRatios.every((x) => x !== undefined)) result.cpuRatio = stats(cpuRatios as number[]);
    const cpus = result.pairs.flatMap((p) => [p.api.clientCpuPct ?? 0, p.anchor.clientCpuPct ?? 0]);
    result.clientCpuPctMax = Math.max(...cpus);
    result.judgedBy = result.cpuRatio && result.clientCpuPctMax >= clientSaturatedPct ? "cpu" : "ratio";
    const extra: string[] = [];
    if (c.absoluteNote) extra.push(c.absoluteNote(result.api.median));
    if (result.judgedBy === "cpu") extra.push(`load client reached ${Math.round(result.clientCpuPctMax)}% of a core: the figures may be the client's limit, so the goal is checked on server CPU per operation`);
    else if (result.clientCpuPctMax >= clientSaturatedPct) extra.push(`load client reached ${Math.round(result.clientCpuPctMax)}% of a core: its figure may be the client's limit, not the server's (a client-bound anchor makes the ratio look better than it is)`);
    for (const n of extra) log(`  · ${n}`);
    result.notes.push(...extra);
  } catch (e) {
    result.error = (e as Error).stack ?? String(e);
    log(`  ✗ failed: ${(e as Error).message}`);
  }
  result.durationMs = performance.now() - t0;
  return result;
}

/**
 * The measurement with its server CPU per operation: as the case measured it (a LIST traversal),
 * else from the rate and the server's CPU share (throughput cases).
 */
function perOp(c: BenchCase, m: Measurement): Measurement {
  if (m.serverCpuUsPerOp !== undefined) return m;
  const us = isThroughput(c) ? cpuUsPerOp(m) : undefined;
  return us === undefined ? m : { ...m, serverCpuUsPerOp: us };
}

export async function runBenchmarks(names: string[], opts: BenchOptions, command: string): Promise<RunReport> {
  const cases = selectCases(names);
  const startedAt = new Date().toISOString();
  const ctx = new BenchContext(opts);
  try {
    for (const c of cases) {
      ctx.results.push(await runCase(ctx, c));
      judge(ctx.results);
      const r = ctx.results[ctx.results.length - 1];
      if (r.ratio) opts.log(`  ${judgedText(r, fmt)}  ${mark(r.pass)}`);
    }
  } finally {
    await ctx.close();
  }
  judge(ctx.results);
  const { log: _log, ...options } = opts;
  return { startedAt, command, machine: describeMachine(), options, results: ctx.results };
}
