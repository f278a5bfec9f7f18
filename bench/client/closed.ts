// Closed loop: every slot sends its next request as soon as the previous one is answered.
// The throughput figure for GET, create and update.
import { cpuPct } from "../core/child.js";
import { Latencies } from "./latency.js";
import type { ClosedJob, ClosedResult } from "./protocol.js";
import { generator } from "./requests.js";
import { openConn } from "./transport.js";

export async function runClosed(job: ClosedJob): Promise<ClosedResult> {
  const conns = await Promise.all(Array.from({ length: job.connections }, () => openConn(job.target, job.proto)));
  const per = job.proto === "h1" ? 1 : Math.max(1, job.perConnection);
  const gen = generator(job.request);
  const slots = Array.from({ length: conns.length * per }, (_, i) => i);
  try {
    await Promise.all(slots.map((s) => gen.prepare(s, conns[s % conns.length], s < conns.length)));
    const lat = new Latencies();
    const statuses: Record<string, number> = {};
    let ok = 0;
    let errors = 0;
    let seq = 0;
    let bytes = 0;
    let firstError: string | undefined;
    const max = job.maxRequests ?? Infinity;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const end = t0 + job.durationMs;
    const loop = async (slot: number) => {
      const conn = conns[slot % conns.length];
      while (performance.now() < end && seq < max) {
        const mine = seq++;
        const out = gen.next(slot, mine);
        const t = performance.now();
        try {
          let r = await conn.request(out.method, out.path, out.body, out.wantBody);
          const then = r.status < 400 ? gen.then?.(slot, mine, r) : undefined;
          if (then) r = await conn.request(then.method, then.path, then.body, then.wantBody);
          lat.add(performance.now() - t);
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
          if (r.status < 400) {
            ok++;
            bytes += r.bytes;
            gen.onResponse(slot, r);
          } else {
            errors++;
            firstError ??= `HTTP ${r.status} for ${out.method} ${out.path}`;
          }
        } catch (e) {
          errors++;
          firstError ??= String(e);
          await new Promise((r) => setTimeout(r, 5)); // a broken connection must not spin
        }
      }
    };
    await Promise.all(slots.map(loop));
    const elapsedMs = performance.now() - t0;
    return {
      requests: ok,
      errors,
      statuses,
      firstError,
      elapsedMs,
      rate: (ok / elapsedMs) * 1000,
      cpuPct: cpuPct(c0, process.cpuUsage(), elapsedMs),
      latencyMs: lat.summary(),
      meanResponseBytes: ok ? bytes / ok : 0,
    };
  } finally {
    for (const c of conns) c.close();
  }
}
