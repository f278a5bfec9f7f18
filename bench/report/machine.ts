// The machine a run happened on: ratios travel between machines, absolute figures do not.
import { cpus, release, totalmem, type as osType } from "node:os";

export interface Machine {
  cpu: string;
  cores: number;
  ramGiB: number;
  node: string;
  kernel: string;
}

export function describeMachine(): Machine {
  const c = cpus();
  return { cpu: c[0]?.model.trim() ?? "unknown", cores: c.length, ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10, node: process.version, kernel: `${osType()} ${release()}` };
}

export function machineLine(m: Machine): string {
  return `${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}, ${m.kernel}`;
}
