// The process and runtime families: process_cpu_seconds_total, process_resident_memory_bytes,
// process_open_fds, process_max_fds, process_start_time_seconds, ... as client_golang's process
// collector names them (kube-apiserver registers it raw: no stability level in HELP), and Node's
// own (heap, event-loop lag, GC) where kube-apiserver has Go's runtime families. prom-client's
// default metrics give both; they describe the process, so they are collected once per process
// and every server in it shows the same (its event-loop and GC observers are made only once).
import type { Registry } from "prom-client";

let shared: Registry | undefined;

export function processMetrics(pc: typeof import("prom-client")): Registry {
  if (!shared) {
    shared = new pc.Registry();
    const before = process.cpuUsage();
    pc.collectDefaultMetrics({ register: shared });
    // prom-client counts the CPU used after it registers; client_golang's collector reports the
    // process's whole CPU time, and kapi loads prom-client only after start-up.
    const spent: [string, number][] = [
      ["process_cpu_user_seconds_total", before.user],
      ["process_cpu_system_seconds_total", before.system],
      ["process_cpu_seconds_total", before.user + before.system],
    ];
    for (const [name, micros] of spent) (shared.getSingleMetric(name) as import("prom-client").Counter | undefined)?.inc(micros / 1e6);
  }
  return shared;
}
