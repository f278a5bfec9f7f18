// Watch fan-out: N watch streams over a few HTTP/2 connections, one writer creating pods in the
// watched namespace. The figure is events delivered per second summed over all watchers, from the
// first write until the last delivery.
import { podTemplate, fillTemplate } from "../fixtures.js";
import { cpuPct } from "../core/child.js";
import type { WatchJob, WatchResult } from "./protocol.js";
import { openH2 } from "./transport.js";

const NL = 10;

export async function runWatch(job: WatchJob): Promise<WatchResult> {
  const writer = await openH2(job.target);
  const nConns = Math.ceil(job.watchers / job.perConnection);
  const conns = await Promise.all(Array.from({ length: nConns }, () => openH2(job.target)));
  try {
    let delivered = 0;
    let cutOff = 0;
    let finished = false;
    let lastData = 0;
    const path = `/api/v1/namespaces/${job.namespace}/pods?watch=1`;
    // Count newline-terminated events without decoding them: the client must stay cheap.
    const onData = (c: Buffer) => {
      for (let i = c.indexOf(NL); i !== -1; i = c.indexOf(NL, i + 1)) delivered++;
      lastData = performance.now();
    };
    const onEnd = () => void (finished || cutOff++);
    const statuses = await Promise.all(Array.from({ length: job.watchers }, (_, i) => conns[i % nConns].stream(path, onData, onEnd)));
    const bad = statuses.filter((s) => s !== 200);
    if (bad.length) throw new Error(`watch: ${bad.length} watch requests failed (HTTP ${bad[0]})`);

    const tpl = podTemplate(job.namespace, job.ownerUid);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const end = t0 + job.durationMs;
    let seq = 0;
    let written = 0;
    await Promise.all(
      Array.from({ length: job.writers }, async () => {
        while (performance.now() < end) {
          const n = seq++;
          const r = await writer.request("POST", `/api/v1/namespaces/${job.namespace}/pods`, Buffer.from(fillTemplate(tpl, `w-${n}`, String(n))));
          if (r.status === 201) written++;
        }
      }),
    );
    const expected = written * job.watchers;
    // Wait for everyone to catch up, or for progress to stop (cut-off or lost watchers).
    while (delivered < expected && performance.now() - Math.max(lastData, end) < job.drainMs) await new Promise((r) => setTimeout(r, 5));
    finished = true;
    const elapsedMs = Math.max(lastData, t0 + 1) - t0;
    return {
      written,
      delivered,
      expected,
      cutOff,
      elapsedMs,
      deliveriesPerSec: (delivered / elapsedMs) * 1000,
      cpuPct: cpuPct(c0, process.cpuUsage(), elapsedMs),
    };
  } finally {
    writer.close();
    for (const c of conns) c.close();
  }
}
