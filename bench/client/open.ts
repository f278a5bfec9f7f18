// Open loop: requests leave on a fixed schedule whether or not earlier ones were answered, and
// latency counts from the scheduled time (no coordinated omission). The p99 figure.
import { cpuPct } from "../core/child.js";
import { Latencies } from "./latency.js";
import type { OpenJob, OpenResult } from "./protocol.js";
import { openH2 } from "./transport.js";

export async function runOpen(job: OpenJob): Promise<OpenResult> {
  const conns = await Promise.all(Array.from({ length: job.connections }, () => openH2(job.target)));
  try {
    await Promise.all(conns.map((c) => c.request("GET", job.path)));
    const lat = new Latencies();
    let sent = 0;
    let completed = 0;
    let errors = 0;
    const interval = 1000 / job.rate;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const end = t0 + job.durationMs;
    // The first tenth (≥ 100 ms) runs at the rate but is not recorded: streams, JIT and pools warm up.
    const recordFrom = t0 + Math.max(100, job.durationMs / 10);
    let outstanding = 0;
    let drained: (() => void) | undefined;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const now = performance.now();
        for (let due = t0 + sent * interval; due <= now && due < end; due = t0 + sent * interval) {
          const conn = conns[sent % conns.length];
          sent++;
          outstanding++;
          const done = (ok: boolean) => {
            if (ok) {
              completed++;
              if (due >= recordFrom) lat.add(performance.now() - due);
            } else errors++;
            if (--outstanding === 0) drained?.();
          };
          conn.request("GET", job.path).then((r) => done(r.status < 400), () => done(false));
        }
        if (now >= end) {
          clearInterval(timer);
          resolve();
        }
      }, 1);
    });
    if (outstanding > 0) await Promise.race([new Promise<void>((r) => (drained = r)), new Promise((r) => setTimeout(r, 10_000))]);
    const elapsedMs = performance.now() - t0;
    return {
      sent,
      completed,
      errors,
      achievedRate: (completed / job.durationMs) * 1000,
      elapsedMs,
      cpuPct: cpuPct(c0, process.cpuUsage(), elapsedMs),
      latencyMs: lat.summary(),
    };
  } finally {
    for (const c of conns) c.close();
  }
}
