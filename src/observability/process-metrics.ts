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
    // prom-client counts the CPU used after its own baseline, read while it registers;
    // client_golang's collector reports the process's whole CPU time, and kapi loads prom-client
    // only after start-up. So these three are read whole at every scrape instead.
    const whole: [string, string, (usage: NodeJS.CpuUsage) => number][] = [
      ["process_cpu_user_seconds_total", "Total user CPU time spent in seconds.", (u) => u.user],
      ["process_cpu_system_seconds_total", "Total system CPU time spent in seconds.", (u) => u.system],
      ["process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", (u) => u.user + u.system],
    ];
    for (const [name, help, micros] of whole) {
      shared.removeSingleMetric(name);
      new pc.Counter({
        name,
        help,
        registers: [shared],
        collect() {
          this.reset();
          this.inc(micros(process.cpuUsage()) / 1e6);
        },
      });
    }
  }
  return shared;
}
