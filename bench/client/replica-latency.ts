// Watch delivery latency across replicas: pod creates through one kapi by a few closed-loop
// writers, each timed from the moment its request is sent until a watch on another kapi over the
// same etcd delivers the pod's ADDED event (the write's path, etcd, the other replica's etcd watch
// and watch cache, and its watch stream to the client). A writer sends its next create only once
// the event arrived, so nothing queues and the figure is the path's latency.
import { fillTemplate, podTemplate } from "../fixtures.js";
import { cpuPct } from "../core/child.js";
import { Latencies } from "./latency.js";
import type { ReplicaLatencyJob, ReplicaLatencyResult } from "./protocol.js";
import { openH2 } from "./transport.js";

export async function runReplicaLatency(job: ReplicaLatencyJob): Promise<ReplicaLatencyResult> {
  const writer = await openH2(job.write);
  const watcher = await openH2(job.watch);
  try {
    const waiting = new Map<string, () => void>();
    let buf = "";
    const onData = (c: Buffer) => {
      buf += c.toString("utf8");
      for (let i = buf.indexOf("\n"); i !== -1; i = buf.indexOf("\n")) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const ev = JSON.parse(line) as { type: string; object: { metadata: { name: string } } };
        if (ev.type === "ADDED") waiting.get(ev.object.metadata.name)?.();
      }
    };
    const status = await watcher.stream(`/api/v1/namespaces/${job.namespace}/pods?watch=1`, onData, () => undefined);
    if (status !== 200) throw new Error(`replica latency: watch on the second replica: HTTP ${status}`);
    const tpl = podTemplate(job.namespace, job.ownerUid);
    const path = `/api/v1/namespaces/${job.namespace}/pods`;
    const lat = new Latencies();
    const createLat = new Latencies();
    let written = 0;
    let lost = 0;
    let errors = 0;
    let seq = 0;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const end = t0 + job.durationMs;
    const loop = async () => {
      while (performance.now() < end) {
        const name = `lat-${seq++}`;
        let timer: NodeJS.Timeout | undefined;
        // Resolves with the event's arrival time (it may come before the create's answer), or undefined.
        const event = new Promise<number | undefined>((resolve) => {
          waiting.set(name, () => resolve(performance.now()));
          timer = setTimeout(() => resolve(undefined), job.eventTimeoutMs);
        });
        const sent = performance.now();
        const r = await writer.request("POST", path, Buffer.from(fillTemplate(tpl, name, String(seq)))).catch(() => undefined);
        if (r?.status !== 201) {
          errors++;
          waiting.delete(name);
          clearTimeout(timer);
          continue;
        }
        written++;
        createLat.add(performance.now() - sent);
        const arrived = await event;
        clearTimeout(timer);
        waiting.delete(name);
        if (arrived === undefined) lost++;
        else lat.add(arrived - sent);
      }
    };
    await Promise.all(Array.from({ length: job.writers }, loop));
    return { written, lost, errors, latencyMs: lat.summary(), createMs: createLat.summary(), cpuPct: cpuPct(c0, process.cpuUsage(), performance.now() - t0) };
  } finally {
    writer.close();
    watcher.close();
  }
}
