// Child processes of the bench (servers, anchors, the load client): forked with the tsx loader
// so they run from TypeScript source, and spoken to over IPC with request/reply messages.
import { fork, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance as nodePerformance } from "node:perf_hooks";

export const benchDir = dirname(dirname(fileURLToPath(import.meta.url)));
export const repoRoot = dirname(benchDir);

export interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: string;
}

export class Child {
  private nextId = 1;
  private waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private exited = false;
  readonly exit: Promise<number | null>;

  private constructor(readonly proc: ChildProcess, readonly label: string) {
    this.exit = new Promise((resolve) => proc.once("exit", (code) => resolve(code)));
    proc.on("message", (m: Reply) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.ok) w.resolve(m.value);
      else w.reject(new Error(`${label}: ${m.error}`));
    });
    void this.exit.then((code) => {
      this.exited = true;
      for (const w of this.waiting.values()) w.reject(new Error(`${label} exited (${code})`));
      this.waiting.clear();
    });
  }

  /** Fork bench/<rel> under tsx. Extra node flags (e.g. --expose-gc) go in nodeArgs. */
  static start(rel: string, args: string[] = [], nodeArgs: string[] = []): Child {
    const proc = fork(join(benchDir, rel), args, {
      cwd: repoRoot,
      execArgv: ["--import", "tsx", ...nodeArgs],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      serialization: "advanced",
    });
    return new Child(proc, rel);
  }

  call<T>(op: string, arg?: unknown): Promise<T> {
    if (this.exited) return Promise.reject(new Error(`${this.label} has exited`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.proc.send({ id, op, arg });
    });
  }

  /** Ask politely (op "stop"), then kill after a grace period. */
  async stop(graceMs = 5000): Promise<void> {
    if (this.exited) return;
    await Promise.race([this.call("stop").catch(() => undefined), new Promise((r) => setTimeout(r, graceMs))]);
    const t = setTimeout(() => this.proc.kill("SIGKILL"), graceMs);
    await this.exit;
    clearTimeout(t);
  }
}

export type Handler = (arg: any) => unknown | Promise<unknown>;

/** A child's CPU time and its event loop's busy time so far (nodePerformance.eventLoopUtilization). */
export interface CpuReading extends NodeJS.CpuUsage {
  loopActiveMs: number;
  loopIdleMs: number;
}

/** In a child: answer IPC requests with the given handlers; "cpu" and "stop" are built in. */
export function serveIpc(handlers: Record<string, Handler>, onStop: () => Promise<void> = async () => undefined): void {
  const all: Record<string, Handler> = {
    cpu: (): CpuReading => {
      const { active, idle } = nodePerformance.eventLoopUtilization();
      return { ...process.cpuUsage(), loopActiveMs: active, loopIdleMs: idle };
    },
    /** After forced collections: the process's RSS, and its live heap plus what lives outside it (Buffers). */
    memory: () => {
      const gc = (globalThis as { gc?: () => void }).gc;
      if (gc) {
        gc();
        gc();
      }
      const m = process.memoryUsage();
      return { rss: m.rss, live: m.heapUsed + m.external };
    },
    ...handlers,
    stop: async () => {
      await onStop();
      setImmediate(() => process.exit(0));
      return true;
    },
  };
  process.on("message", async (m: { id: number; op: string; arg: unknown }) => {
    const h = all[m.op];
    try {
      if (!h) throw new Error(`unknown op ${m.op}`);
      process.send!({ id: m.id, ok: true, value: await h(m.arg) });
    } catch (e) {
      process.send!({ id: m.id, ok: false, error: (e as Error).stack ?? String(e) });
    }
  });
  // The parent going away ends us too: no orphaned servers after a ^C.
  process.on("disconnect", () => process.exit(0));
}

/**
 * The share of the time between two readings the event loop was running (not waiting in the
 * poll): near 100% while the process gets less than a core means it waits for a CPU, not for I/O.
 */
export function loopBusyPct(a: CpuReading, b: CpuReading): number {
  const active = b.loopActiveMs - a.loopActiveMs;
  const total = active + b.loopIdleMs - a.loopIdleMs;
  return total > 0 ? (active / total) * 100 : 0;
}

/** CPU time (µs) between two process.cpuUsage() readings as a percentage of one core over ms. */
export function cpuPct(a: NodeJS.CpuUsage, b: NodeJS.CpuUsage, ms: number): number {
  return ms > 0 ? ((b.user - a.user + (b.system - a.system)) / 1000 / ms) * 100 : 0;
}
