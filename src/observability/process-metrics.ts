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
    pc.collectDefaultMetrics({ register: shared });
  }
  return shared;
}
